import { callHook } from '../contract/call-hook.js';
import { errorResponse, type ReceiverResponse } from './answers.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import type { ErrorContext } from './receiver-types.js';
import type { ReceiverFailure } from './webhook-error.js';

/** What is known about a delivery before the answer: `ErrorContext` without the status. */
export type FailureScope = Omit<ErrorContext, 'status'>;

/** Builds the error answer of `error.code`, saying `message`, and tells `onError` about `error`. */
export function refuse(
  options: NormalizedReceiverOptions,
  error: ReceiverFailure,
  message: string,
  scope: FailureScope,
): ReceiverResponse {
  const response = errorResponse(error.code, message, scope.correlationId);
  callHook(options.onError, error, { ...scope, status: response.status });
  return response;
}
