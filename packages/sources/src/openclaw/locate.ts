import { join } from 'node:path';
import { listDirectory, readRevision } from '@sessref/platform';

/** Agent folders one listing looks at: far above a real state folder, a bound on a hostile one. */
const MAX_AGENTS = 10_000;

/** One agent's database: the agent's id (its folder's name) and the file. */
export interface AgentDatabase {
  readonly agentId: string;
  readonly path: string;
}

/**
 * Each agent's database under OpenClaw's `agents/` folder:
 * `<agent id>/agent/openclaw-agent.sqlite` (`src/state/openclaw-agent-db.paths.ts`),
 * a regular file; an agent folder without one has no sessions.
 */
export function agentDatabases(agents: string): AgentDatabase[] {
  return listDirectory(agents, agents, { entries: MAX_AGENTS })
    .filter((entry) => entry.kind === 'directory')
    .map((entry) => ({ agentId: entry.name, path: join(entry.path, 'agent', 'openclaw-agent.sqlite') }))
    .filter((database) => readRevision(database.path, true) !== undefined);
}
