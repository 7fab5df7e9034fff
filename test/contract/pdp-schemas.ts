/**
 * JSON Schemas of the decision point's list queries and AuthZEN, which permit-openapi.json does not
 * describe (the PDP is a separate host: api-notes "Decision point: list queries"). Written from the PDP's
 * own source: permitio/PDP `horizon/enforcer/schemas.py` (UserPermissionsQuery, _UserPermissionsResult,
 * UserTenantsQuery, UserTenantsResult, AuthorizationQuery, _AllTenantsAuthorizationResult,
 * AuthorizedUsersAuthorizationQuery, AuthorizedUserAssignment, AuthorizedUsersResult) and
 * `pdp-server/src/api/authzen/{schema,evaluation,evaluations,search_*}.rs` (AuthZenSubject,
 * AuthZenAction, AuthZenResource, the search requests and responses, PageResponse), and, for
 * `/local/role_assignments`, api-notes (the PDP's local copy: `{user, role, tenant, resource_instance?}`).
 * Requests are held as the SDKs send them; answers as the PDP's pydantic/serde models produce them
 * (optional fields absent or null, no other fields).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Exchange } from './openapi.js';

const str = { type: 'string' } as const;
const dict = { type: 'object' } as const;
const optionalDict = { type: ['object', 'null'] } as const;
const closed = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

const TENANT_DETAILS = closed({ key: str, attributes: dict }, ['key']);
const USER = { type: 'object', properties: { key: str, attributes: optionalDict }, required: ['key'] };
const RESOURCE = {
  type: 'object',
  properties: {
    type: str,
    key: { type: ['string', 'null'] },
    tenant: { type: ['string', 'null'] },
    attributes: optionalDict,
  },
  required: ['type'],
};
const AUTHZEN_SUBJECT = closed({ type: str, id: str, properties: optionalDict }, ['type', 'id']);
const AUTHZEN_ACTION = closed({ name: str, properties: optionalDict }, ['name']);
const AUTHZEN_RESOURCE = closed({ type: str, id: str, properties: optionalDict }, ['type', 'id']);
const PAGE_RESPONSE = closed({ next_token: { type: ['string', 'null'] } });
const EVALUATION = closed(
  { subject: AUTHZEN_SUBJECT, action: AUTHZEN_ACTION, resource: AUTHZEN_RESOURCE, context: optionalDict },
  ['subject', 'action', 'resource'],
);
const DECISION = closed({ decision: { type: 'boolean' }, context: optionalDict }, ['decision']);

/** Each operation: the request body (absent for GET) and the 200 answer. */
export const PDP_OPERATIONS: Record<string, { request?: object; response: object }> = {
  'POST /user-permissions': {
    request: {
      type: 'object',
      properties: {
        user: USER,
        tenants: { type: ['array', 'null'], items: str },
        resources: { type: ['array', 'null'], items: str },
        resource_types: { type: ['array', 'null'], items: str },
        context: optionalDict,
      },
      required: ['user'],
    },
    response: {
      type: 'object',
      additionalProperties: closed(
        {
          tenant: { anyOf: [TENANT_DETAILS, { type: 'null' }] },
          resource: { anyOf: [closed({ key: str, type: str, attributes: dict }, ['key', 'type']), { type: 'null' }] },
          permissions: { type: 'array', items: { type: 'string', pattern: '^.+:.+$' } },
          roles: { type: ['array', 'null'], items: str },
        },
        ['permissions'],
      ),
    },
  },
  'POST /authorized_users': {
    request: closed({ action: str, resource: RESOURCE, context: optionalDict, sdk: str }, ['action', 'resource']),
    response: closed(
      {
        resource: { type: 'string', pattern: '^[^:]+:.+$' },
        tenant: str,
        users: {
          type: 'object',
          additionalProperties: {
            type: 'array',
            items: closed({ user: str, tenant: str, resource: str, role: str }, ['user', 'tenant', 'resource', 'role']),
          },
        },
      },
      ['resource', 'tenant', 'users'],
    ),
  },
  'POST /allowed/all-tenants': {
    request: {
      type: 'object',
      properties: { user: USER, action: str, resource: RESOURCE, context: optionalDict, sdk: str },
      required: ['user', 'action', 'resource'],
    },
    response: closed(
      {
        allowed_tenants: {
          type: 'array',
          items: closed(
            {
              allow: { type: 'boolean' },
              query: optionalDict,
              debug: optionalDict,
              result: { type: 'boolean' },
              tenant: TENANT_DETAILS,
            },
            ['allow', 'result', 'tenant'],
          ),
        },
      },
      ['allowed_tenants'],
    ),
  },
  'POST /user-tenants': {
    request: closed({ user: USER, context: optionalDict }, ['user']),
    response: { type: 'array', items: TENANT_DETAILS },
  },
  'GET /local/role_assignments': {
    response: {
      type: 'array',
      items: closed({ user: str, role: str, tenant: str, resource_instance: str }, ['user', 'role', 'tenant']),
    },
  },
  'POST /access/v1/evaluation': { request: EVALUATION, response: DECISION },
  'POST /access/v1/evaluations': {
    request: closed({
      subject: AUTHZEN_SUBJECT,
      action: AUTHZEN_ACTION,
      resource: AUTHZEN_RESOURCE,
      context: optionalDict,
      evaluations: {
        type: 'array',
        items: closed({
          subject: AUTHZEN_SUBJECT,
          action: AUTHZEN_ACTION,
          resource: AUTHZEN_RESOURCE,
          context: optionalDict,
        }),
      },
    }),
    response: closed({ evaluations: { type: 'array', items: DECISION } }, ['evaluations']),
  },
  'POST /access/v1/search/subject': {
    request: closed(
      {
        subject: closed({ type: { const: 'user' } }, ['type']),
        action: AUTHZEN_ACTION,
        resource: AUTHZEN_RESOURCE,
        context: optionalDict,
        page: optionalDict,
      },
      ['subject', 'action', 'resource'],
    ),
    response: closed(
      { results: { type: 'array', items: AUTHZEN_SUBJECT }, page: PAGE_RESPONSE, context: optionalDict },
      ['results'],
    ),
  },
  'POST /access/v1/search/resource': {
    request: closed(
      {
        subject: AUTHZEN_SUBJECT,
        action: AUTHZEN_ACTION,
        resource: closed({ type: str }, ['type']),
        context: optionalDict,
        page: optionalDict,
      },
      ['subject', 'action', 'resource'],
    ),
    response: closed(
      { results: { type: 'array', items: AUTHZEN_RESOURCE }, page: PAGE_RESPONSE, context: optionalDict },
      ['results'],
    ),
  },
  'POST /access/v1/search/action': {
    request: closed(
      { subject: AUTHZEN_SUBJECT, resource: AUTHZEN_RESOURCE, context: optionalDict, page: optionalDict },
      ['subject', 'resource'],
    ),
    response: closed(
      { results: { type: 'array', items: AUTHZEN_ACTION }, page: PAGE_RESPONSE, context: optionalDict },
      ['results'],
    ),
  },
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiled = new Map<object, ValidateFunction>();
const validate = (schema: object) => compiled.get(schema) ?? compiled.set(schema, ajv.compile(schema)).get(schema)!;

/** The operation an exchange is, or undefined when it is none of these. */
export const pdpOperation = (ex: Pick<Exchange, 'method' | 'path'>) =>
  PDP_OPERATIONS[`${ex.method.toUpperCase()} ${ex.path}`] ? `${ex.method.toUpperCase()} ${ex.path}` : undefined;

/** What is wrong with a 200 exchange of one of these operations: its request body and its answer. */
export function checkPdpExchange(ex: Exchange): string[] {
  const op = pdpOperation(ex);
  if (!op) return [`${ex.method} ${ex.path}: not a decision point list query`];
  const { request, response } = PDP_OPERATIONS[op];
  const problems: string[] = [];
  for (const [what, schema, value] of [
    ['request', request, ex.body],
    ['answer', response, ex.response],
  ] as const) {
    if (!schema) continue;
    const v = validate(schema);
    if (!v(value)) problems.push(`${op} ${what}: ${ajv.errorsText(v.errors)} in ${JSON.stringify(value)}`);
  }
  return problems;
}
