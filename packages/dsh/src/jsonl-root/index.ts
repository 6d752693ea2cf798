/**
 * A dsh JSONL session root on disk: its layout and log names (format.ts),
 * the revision that identifies one state of a log (revision.ts), bounded
 * reads that never wait on a special file (regular-file.ts), and a tracker
 * that follows every session's revision (log-files.ts). Node only.
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
  lockFilesBeside,
  logFileName,
  parseLogFileName,
  sessionLogs,
  sessionLogsOf,
  type Compression,
  type SessionLog,
} from './format.js';
export { fileToken, readRevision, revisionToken, sameFile, sameRevision, type LogRevision } from './revision.js';
export { FileTooLargeError, NotRegularFileError, describeFileType, openRegularFile, readFully, readRegularFile } from './regular-file.js';
export { LogFileTracker } from './log-files.js';
