/** Query parameters of a connection string that carry a password (libpq, ioredis, node-redis). */
const SECRET_PARAMS = ['password', 'pass', 'passwd', 'sslpassword', 'pwd'];

/**
 * A connection string as it may be printed: `postgres://app:***@db:5432/pos`, `?password=***`; one
 * that is no URL is `(connection string)`, as it may hold a password in a form not recognised.
 */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return '(connection string)';
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  for (const key of [...parsed.searchParams.keys()])
    if (SECRET_PARAMS.includes(key.toLowerCase())) parsed.searchParams.set(key, '***');
  // `set` encodes `***` as `%2A%2A%2A`: print it as typed.
  return parsed.toString().replaceAll('%2A%2A%2A', '***');
}

/** The passwords a connection string holds, decoded (user part and query parameters). */
export function passwordsOf(url: string): string[] {
  if (!URL.canParse(url)) return [];
  const parsed = new URL(url);
  const found = [parsed.password, ...SECRET_PARAMS.flatMap((key) => parsed.searchParams.getAll(key))];
  const decoded = found.filter(Boolean).flatMap((p) => {
    try {
      return [p, decodeURIComponent(p)];
    } catch {
      return [p];
    }
  });
  return [...new Set(decoded)];
}

/**
 * `text` with `url` redacted, and each of its passwords alone (a driver may quote one) by `***`,
 * but for those shorter than 3 characters: replacing `a` everywhere would hide nothing.
 */
export function redactIn(text: string, url: string): string {
  const passwords = passwordsOf(url);
  // A URL without a password is printed as typed (not as `URL` would normalise it).
  if (passwords.length === 0) return text;
  let out = text.split(url).join(redactUrl(url));
  for (const password of passwords) if (password.length >= 3) out = out.split(password).join('***');
  return out;
}

/**
 * `text` with the passwords of `urls` redacted, and of any other `scheme://user:password@` or
 * `password=` in it (a driver's message may quote a URL of its own making).
 */
export function redactAll(text: string, urls: readonly (string | undefined)[]): string {
  let out = text;
  for (const url of urls) if (url) out = redactIn(out, url);
  return out
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, '$1***@')
    .replace(new RegExp(`([?&;\\s](?:${SECRET_PARAMS.join('|')})=)[^&\\s'"]+`, 'gi'), '$1***');
}
