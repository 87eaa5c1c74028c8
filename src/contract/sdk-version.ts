/**
 * The SDK version: sent in every `User-Agent` and given to OpenTelemetry as the instrumentation
 * scope's version. Kept in this one constant, low in the tree so that the client and telemetry
 * both import it downward; a test checks it against package.json so a release cannot forget it.
 */
export const SDK_VERSION = '0.1.0';
