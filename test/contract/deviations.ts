/**
 * The only differences from `permit-openapi.json` that the contract allows: the ones the specification
 * (`../shared/spec/000_*.txt`) states itself, where it wins over the public API (spec README, rule 1).
 * Each row patches the document before anything is checked against it. docs/server.md carries the same
 * table; test/contract/openapi.test.ts checks that the two list the same rows.
 */
export interface Deviation {
  /** What differs, as docs/server.md words it. */
  difference: string;
  /** The specification's own words for it. */
  specification: string;
  apply(doc: OpenApiDoc): void;
}

type OpenApiDoc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };

/** The access-request answers (read, approve, deny, cancel). */
const REQUEST_READS = ['AccessRequestRead', 'AccessRequestApproved', 'AccessRequestDenied', 'AccessRequestCanceled'];
const FACTS_REQUESTS =
  '/v2/facts/{proj_id}/{env_id}/access_requests/{elements_config_id}/user/{user_id}/tenant/{tenant_id}';

const eachRead = (doc: OpenApiDoc, fn: (properties: Record<string, any>, schema: any) => void) => {
  for (const name of REQUEST_READS) fn(doc.components.schemas[name].properties, doc.components.schemas[name]);
};

export const SPEC_DEVIATIONS: Deviation[] = [
  {
    difference:
      'access-request `status` is `null` (pending), `approved`, `deny` or `cancel`, besides the public `pending`/`approved`/`denied`/`canceled`',
    specification: 'Access request status values seen: null (freshly created), `approved`, `deny`, `cancel`.',
    apply: (doc) =>
      eachRead(doc, (p) => {
        p.status = {
          anyOf: [{ $ref: '#/components/schemas/RequestStatus' }, { enum: [null, 'approved', 'deny', 'cancel'] }],
        };
      }),
  },
  {
    difference: 'access-request `reviewer_user_id`, `reviewed_at` and `reviewer_comment` are `null` until set',
    specification:
      'reviewer_user_id: string (UUID) or null, null until reviewed; reviewed_at: ... or null; reviewer_comment: string or null.',
    apply: (doc) =>
      eachRead(doc, (p) => {
        for (const f of ['reviewer_user_id', 'reviewed_at', 'reviewer_comment'])
          p[f] = { anyOf: [p[f], { type: 'null' }] };
      }),
  },
  {
    difference: 'access requests carry `org_id` and `env_id` beside `organization_id` and `environment_id`',
    specification: 'Access request fields: org_id (UUID), project_id (UUID), env_id (UUID).',
    apply: (doc) =>
      eachRead(doc, (p) => {
        p.org_id = { type: 'string' };
        p.env_id = { type: 'string' };
      }),
  },
  {
    difference:
      'an access request for a role in a tenant, on no resource, has no `resource` in `access_request_details`',
    specification:
      'a user creates a request for a role (optionally on a resource instance) in a tenant; details contain tenant, resource, resource_instance, role (identifiers of those entities).',
    apply: (doc) => {
      const details = doc.components.schemas.AccessRequestDetails;
      details.required = details.required.filter((f: string) => f !== 'resource');
    },
  },
  {
    difference: 'cancelling an access request takes an optional body `{reason}`',
    specification: 'Cancel | PUT | P/{access_request_id}/cancel | reason (string).',
    apply: (doc) => {
      doc.paths[`${FACTS_REQUESTS}/{access_request_id}/cancel`].put.requestBody = {
        required: false,
        content: {
          'application/json': {
            schema: { type: 'object', properties: { reason: { type: 'string' } }, additionalProperties: false },
          },
        },
      };
    },
  },
];
