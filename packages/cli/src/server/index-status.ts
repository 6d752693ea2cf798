/**
 * `GET /api/index`: how far sessref's content index has come, so the page
 * can say why "Found in conversation" takes a while on a first build. The
 * first request joins the build (the background one `serve` starts at boot,
 * or starts one) and follows its progress from then on; the build is the
 * engine's, so it stops when the engine closes.
 */
import { classify } from '../classify.js';
import type { Engine } from '../engine/engine.js';
import type { ApiRequest } from './request.js';
import type { IndexStatus } from './protocol.js';

/** Each engine's first build as followed so far. */
const followed = new WeakMap<Engine, { status: IndexStatus }>();

export function indexStatus({ engine }: ApiRequest<'/api/index'>): Promise<IndexStatus> {
  let build = followed.get(engine);
  if (build === undefined) {
    const started: { status: IndexStatus } = { status: { state: 'building', indexed: 0 } };
    build = started;
    followed.set(engine, started);
    engine
      .refreshSearchIndex(({ indexed, total, remainingMs }) => {
        started.status = { state: 'building', indexed, total, ...(remainingMs === undefined ? {} : { remainingMs: Math.round(remainingMs) }) };
      })
      .then(
        () => (started.status = { state: 'ready' }),
        (error: unknown) => {
          const failure = classify(error);
          started.status = { state: 'unavailable', code: failure.code ?? 'INTERNAL' };
        },
      );
  }
  return Promise.resolve(build.status);
}
