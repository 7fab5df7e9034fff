import type { ApiClient } from '../api/index.js';
import { optional, STRING } from '../api/answer.js';
import { ApiError, ConfigError } from '../errors.js';
import { createReviewSource, type ReviewSource } from './source.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The public maximum of a list page. */
const SCAN_PAGE = 100;

export interface Located {
  id: string;
  config: string;
  source: ReviewSource;
}

/** The keys of the user-management element configurations (`GET /v2/elements/{p}/{e}/config`). */
export async function readConfigKeys(client: ApiClient): Promise<string[]> {
  const item = { key: STRING, elements_type: optional(STRING) };
  const configs = await client.listAll<{ key: string; elements_type?: string | null }>(
    `${client.paths.elements}/config`,
    { perPage: 100, item },
  );
  return configs.filter((c) => !c.elements_type || c.elements_type === 'user_management').map((c) => c.key);
}

/**
 * A request by its id, or a unique prefix of it, among those `user` may see in `tenant`, in the
 * element configuration `config` or, without one, in every configuration: a script need not know which
 * configuration a request was filed through. A full id is read directly (`GET P/{id}`, one per
 * configuration); a prefix reads the lists page by page. Not found, or a prefix of several ids, is a
 * ConfigError that says where it looked.
 */
export async function locateRequest(
  client: ApiClient,
  o: { user: string; tenant: string; config?: string },
  given: string,
): Promise<Located> {
  const configs = o.config ? [o.config] : await readConfigKeys(client);
  const sources = configs.map((config) => ({
    config,
    source: createReviewSource({ client, user: o.user, tenant: o.tenant, config }),
  }));
  const found: Located[] = [];
  if (UUID.test(given)) {
    const answers = await Promise.all(
      sources.map(async (s) => ((await readOrNull(() => s.source.get(given))) ? s : undefined)),
    );
    for (const a of answers) if (a) found.push({ id: given.toLowerCase(), ...a });
  } else {
    const prefix = given.toLowerCase();
    if (!/^[0-9a-f-]+$/.test(prefix))
      throw new ConfigError(
        `"${given}" is not an access request id (nor the start of one): ids are UUIDs, as roster requests list shows them`,
      );
    for (const s of sources) {
      for (let page = 1; ; page++) {
        const got = await s.source.listPage({}, page, SCAN_PAGE);
        for (const r of got.items)
          if (r.id.toLowerCase().startsWith(prefix) && !found.some((f) => f.id === r.id))
            found.push({ id: r.id, ...s });
        if (got.items.length < SCAN_PAGE || (got.total !== undefined && page * SCAN_PAGE >= got.total)) break;
      }
    }
  }
  const where = `that ${o.user} may see in tenant ${o.tenant} (${o.config ? `configuration ${o.config}` : `configurations: ${configs.join(', ') || 'none'}`})`;
  if (found.length === 1) return found[0];
  if (found.length === 0) throw new ConfigError(`no access request ${given} ${where}`);
  throw new ConfigError(
    `${given} is ambiguous: ${found.length} access requests ${where} start with it (${found
      .slice(0, 3)
      .map((f) => `${f.id} in ${f.config}`)
      .join(', ')}${found.length > 3 ? ', …' : ''}); give more of the id`,
  );
}

async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    // Not there, or not visible to this user: the same answer from the service's side.
    if (err instanceof ApiError && (err.info.status === 404 || err.info.status === 403)) return null;
    throw err;
  }
}
