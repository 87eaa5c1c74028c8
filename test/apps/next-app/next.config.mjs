// Next.js 16 defaults as create-next-app writes them (cacheComponents on).
export default { cacheComponents: true };
