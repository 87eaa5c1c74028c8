/** An error's `code` when it is a string (SQLSTATE, errno names, the SDK's own codes), else ''. */
export const codeOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string'
    ? (err as { code: string }).code
    : '';
