import { httpClient } from '../helpers/server.js';

/**
 * The requests the official SDKs (permit-python, permit-golang) send, for porting their own end-to-end
 * tests: an environment key, the project and environment ids learned from `GET /v2/api-key/scope` as the
 * SDKs do, then `/v2/schema/{proj_id}/{env_id}/…` and `/v2/facts/{proj_id}/{env_id}/…` by id, and the
 * decision point at the same URL. Every call fails loudly on a non-2xx answer (the SDKs raise) unless
 * `raw` is asked for.
 */
export interface VendorClient {
  projectId: string;
  environmentId: string;
  schema(method: string, path: string, body?: unknown): Promise<any>;
  facts(method: string, path: string, body?: unknown): Promise<any>;
  pdp(method: string, path: string, body?: unknown): Promise<any>;
  raw(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  check(user: unknown, action: string, resource: unknown, context?: unknown): Promise<boolean>;
}

export async function vendorClient(url: string, key: string): Promise<VendorClient> {
  const http = httpClient(url);
  const raw = async (method: string, path: string, body?: unknown) => {
    const r = await http.call(method, path, body, { key });
    return { status: r.status, body: r.body };
  };
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await raw(method, path, body);
    if (r.status < 200 || r.status > 299) {
      throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    return r.body;
  };
  const scope = await must('GET', '/v2/api-key/scope');
  const base = (part: string) => `/v2/${part}/${scope.project_id}/${scope.environment_id}`;
  return {
    projectId: scope.project_id,
    environmentId: scope.environment_id,
    schema: (m, p, b) => must(m, base('schema') + p, b),
    facts: (m, p, b) => must(m, base('facts') + p, b),
    pdp: must,
    raw,
    async check(user, action, resource, context = {}) {
      const answer = await must('POST', '/allowed', { user, action, resource, context });
      return answer.allow === true;
    },
  };
}
