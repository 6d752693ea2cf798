/** Assertions on `SessionReferenceError` codes. */
import { expect } from 'vitest';
import { SessionReferenceError, type SessionReferenceErrorCode } from '../src/errors.js';

/** Run `action` and return the `SessionReferenceError` it throws, failing the test if it does not throw one with `code`. */
export function expectSessionReferenceError(action: () => unknown, code: SessionReferenceErrorCode): SessionReferenceError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  return checkError(thrown, code);
}

/** Await `promise` and return the `SessionReferenceError` it rejects with, failing the test otherwise. */
export async function expectRejection(promise: Promise<unknown>, code: SessionReferenceErrorCode): Promise<SessionReferenceError> {
  let thrown: unknown;
  try {
    await promise;
  } catch (error) {
    thrown = error;
  }
  return checkError(thrown, code);
}

function checkError(thrown: unknown, code: SessionReferenceErrorCode): SessionReferenceError {
  expect(thrown, `expected a SessionReferenceError with code ${code}`).toBeInstanceOf(SessionReferenceError);
  const error = thrown as SessionReferenceError;
  expect(error.code).toBe(code);
  expect(error.name).toBe('SessionReferenceError');
  return error;
}

/** True when `error` is a `SessionReferenceError` carrying `code` (for properties that allow a failure). */
export function isErrorWithCode(error: unknown, code: SessionReferenceErrorCode): boolean {
  return error instanceof SessionReferenceError && error.code === code;
}
