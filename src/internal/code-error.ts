import { type CodedErrorClass, codedError } from '../contract/errors.js';

/** The base class {@link codeError} returns: a coded error built as `new XError(code, message, { cause })`. */
export type CodeErrorClass<Name extends string, Code extends string> = abstract new (
  code: Code,
  message: string,
  options?: { cause?: unknown },
) => InstanceType<CodedErrorClass<Name>> & { readonly code: Code };

/**
 * {@link codedError} for the errors whose code is chosen where they are thrown (one class, a union
 * of codes): `class XError extends codeError<'XError', XCode>('XError') {}`.
 */
export /* @__NO_SIDE_EFFECTS__ */ function codeError<Name extends string, Code extends string>(
  name: Name,
): CodeErrorClass<Name, Code> {
  abstract class WithCode extends codedError(name) {
    readonly code: Code;

    constructor(code: Code, message: string, options: { cause?: unknown } = {}) {
      super(message, options.cause === undefined ? undefined : { cause: options.cause });
      this.code = code;
    }
  }
  return WithCode;
}
