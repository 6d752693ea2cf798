/**
 * The floor under a fresh `sessref list` of a dsh root (section 7 times it
 * beside `list`): what any reader of dsh's layout does on every run, and
 * nothing else. A newer log generation is a new file beside the old one and
 * an append changes only the log, so each session directory is listed and
 * its log stat'ed (a `bigint` stat, as sessref's revisions are); no derived
 * file, no header, no output.
 *
 * Usage: node bench/lib/bare-walk.mjs ROOT
 */
const { readdirSync, statSync } = process.getBuiltinModule('node:fs');

const root = process.argv[2];
let logs = 0;
for (const project of readdirSync(root, { withFileTypes: true })) {
  if (!project.isDirectory()) continue;
  const folder = `${root}/${project.name}`;
  for (const session of readdirSync(folder, { withFileTypes: true })) {
    if (!session.isDirectory()) continue;
    const log = readdirSync(`${folder}/${session.name}`).find((name) => name.startsWith('session'));
    if (log === undefined) continue;
    statSync(`${folder}/${session.name}/${log}`, { bigint: true });
    logs += 1;
  }
}
if (logs === 0) throw new Error(`no session log under ${root}`);
