/** Query parameters that carry a password (`redis://host?password=…`, libpq's `?password=…`). */
const SECRET_PARAMS = ['password', 'pass', 'pwd'];

/** The passwords a connection URL carries: in its user part and in its query. */
function passwordsOf(url: string): string[] {
  try {
    const parsed = new URL(url);
    const found = SECRET_PARAMS.flatMap((name) => parsed.searchParams.getAll(name));
    return [decodeURIComponent(parsed.password), ...found].filter((password) => password.length > 0);
  } catch {
    return [];
  }
}

/**
 * A connection string as it may be printed: the password replaced by `***`
 * (`postgres://app:***@db:5432/pos`, `redis://db:6379/?password=***`). A string that is no URL is
 * printed as `(connection string)`, since it may still hold a password in a form this cannot
 * recognise.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of SECRET_PARAMS) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    return parsed.toString().replaceAll('%2A%2A%2A', '***');
  } catch {
    return '(connection string)';
  }
}

/** `text` with every occurrence of `url` (and of its password alone) replaced by its redacted form. */
export function redactIn(text: string, url: string): string {
  let out = text.split(url).join(redactUrl(url));
  for (const password of passwordsOf(url)) if (password.length >= 3) out = out.split(password).join('***');
  return out;
}
