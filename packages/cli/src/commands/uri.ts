import { decodeSessionReferenceUri, encodeSessionReferenceUri } from '@sessref/core';
import { usageError } from '../failure.js';
import { terminalSafe, writeJson, writeLine, type Io } from '../output.js';

/** `sessref uri encode ID` / `sessref uri decode URI` */
export function uriCommand(io: Io, options: { action: string; value: string; json: boolean }): void {
  let result: string;
  if (options.action === 'encode') result = encodeSessionReferenceUri(options.value);
  else if (options.action === 'decode') result = decodeSessionReferenceUri(options.value);
  else throw usageError(`unknown uri action "${options.action}"; use encode or decode`);
  if (options.json) return writeJson(io.stdout, { [options.action === 'encode' ? 'uri' : 'sessionId']: result });
  writeLine(io.stdout, terminalSafe(result));
}
