import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ROOT } from './cli.js';

/**
 * Validators for answers against the public service's own schemas (`permit-openapi.json`, OpenAPI 3.1,
 * so JSON Schema 2020-12), compiled once per test file. The schemas used are copied, unchanged, into
 * test/fixtures/public/ (the OpenAPI description is not part of the repository).
 */
const SPEC = path.join(ROOT, 'test/fixtures/public/access-request-schemas.json');
let ajv: Ajv2020 | undefined;

export function publicSchema(name: string): ValidateFunction {
  if (!ajv) {
    const doc = JSON.parse(readFileSync(SPEC, 'utf8'));
    // `example` and a few other annotation keywords are not JSON Schema: not strict.
    ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema({ $id: 'permit', components: doc.components }, 'permit');
  }
  return ajv.getSchema(`permit#/components/schemas/${name}`)!;
}

const SPEC_STATUS: Record<string, string> = { deny: 'denied', cancel: 'canceled' };
/** Read-model fields that are this server's extensions; answers lose them in the public shape. */
const EXTENSIONS = ['requesting_user_key', 'reviewer_user_key', 'elements_config_id', 'cancel_reason', 'can_review'];

/**
 * An access request as the public schema would check it, after the deviations the project allows
 * (docs/access-requests.md): the specification's statuses (`null`, `deny`, `cancel`), `null` for fields
 * not set (reviewer fields, a tenant-wide request's instance), and both spellings of the organisation and
 * environment ids. Extension fields are dropped here too.
 */
export function asPublicAccessRequest(r: Record<string, unknown>): Record<string, unknown> {
  const dropNulls = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
  const out: Record<string, unknown> = dropNulls(r);
  for (const f of ['org_id', 'env_id', ...EXTENSIONS]) delete out[f];
  out.status = r.status === null ? 'pending' : (SPEC_STATUS[r.status as string] ?? r.status);
  out.access_request_details = dropNulls(r.access_request_details as Record<string, unknown>);
  return out;
}

/** The problems of `value` against the public schema `name` (empty when it conforms). */
export function publicShapeErrors(name: string, value: unknown): string[] {
  const validate = publicSchema(name);
  return validate(value)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}
