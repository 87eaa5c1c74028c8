/**
 * A connection string as it may be printed: the password replaced by `***`
 * (`postgres://app:***@db:5432/pos`). A string that is no URL is printed as `(connection string)`,
 * since it may still hold a password in a form this cannot recognise.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(connection string)';
  }
}

/** `text` with every occurrence of `url` (and of its password alone) replaced by its redacted form. */
export function redactIn(text: string, url: string): string {
  let out = text.split(url).join(redactUrl(url));
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password.length >= 3) out = out.split(password).join('***');
  } catch {
    // Not a URL: the whole string was replaced above.
  }
  return out;
}
