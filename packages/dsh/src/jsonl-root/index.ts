/**
 * A dsh JSONL session root on disk: its layout and log names (format.ts)
 * and a tracker that follows every session's log revision (log-files.ts).
 * The revision record, the bounded reads that never wait on a special file
 * and the directory listings a process shares are the Node platform's
 * (`@sessref/platform`): import them from there. Node only.
 * @module @sessref/dsh/jsonl-root
 */
export {
  DEFAULT_LOG_FILE_NAME,
  DSH_LOCK_FILE_NAME,
  SESSREF_LOCK_FILE_NAME,
  currentLogOf,
  decodeSessionDirectory,
  encodeSessionDirectory,
  flatLogSessionId,
  isOtherCompressionLog,
  listNames,
  listSubdirectories,
  readEntries,
  lockFilesBeside,
  logFileName,
  parseLogFileName,
  projectDirectoryName,
  sessionLogAt,
  sessionLogs,
  sessionLogsOf,
  type Compression,
  type ListDirectory,
  type SessionLog,
} from './format.js';
export { LogFileTracker } from './log-files.js';
