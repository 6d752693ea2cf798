import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let devices: { ok: boolean; reason: string } | undefined;

/**
 * Whether this machine lets a test make a character device (mknod 1:5,
 * /dev/zero's numbers: root with CAP_MKNOD), and why not. Probed once.
 */
export function deviceSupport(): { ok: boolean; reason: string } {
  if (devices) return devices;
  const probe = join(tmpdir(), `sessref-mknod-${process.pid}`);
  try {
    execFileSync('mknod', [probe, 'c', '1', '5'], { stdio: 'pipe' });
    devices = { ok: true, reason: '' };
  } catch (error) {
    devices = { ok: false, reason: `mknod failed here (${(error as Error).message.split('\n')[0]}): needs root with CAP_MKNOD` };
  } finally {
    rmSync(probe, { force: true });
  }
  return devices;
}
