import type { FastifyInstance } from 'fastify';
import { invalid } from '../errors.js';
import { evaluate, searchActions, searchResources, searchSubjects, type Evaluation } from '../repo/authzen.js';
import { NAMED, type DecisionPoint } from './decision-point.js';
import { typed } from './typed.js';

const PROPERTIES = { type: ['object', 'null'] } as const;
const ID = { type: 'string', minLength: 1, maxLength: 256 } as const;
/** Only users are subjects (the PDP reads `id` as a user key). */
const SUBJECT = {
  type: 'object',
  properties: { type: { const: 'user' }, id: ID, properties: PROPERTIES },
  required: ['type', 'id'],
} as const;
const SUBJECT_TYPE = { type: 'object', properties: { type: { const: 'user' } }, required: ['type'] } as const;
const ACTION = { type: 'object', properties: { name: ID, properties: PROPERTIES }, required: ['name'] } as const;
const RESOURCE = {
  type: 'object',
  properties: { type: ID, id: { type: ['string', 'null'], maxLength: 256 }, properties: PROPERTIES },
  required: ['type'],
} as const;
const RESOURCE_TYPE = { type: 'object', properties: { type: ID }, required: ['type'] } as const;
const PAGE = { type: ['object', 'null'] } as const;
const EVALUATION = {
  type: 'object',
  properties: { subject: SUBJECT, action: ACTION, resource: RESOURCE, context: PROPERTIES },
  required: ['subject', 'action', 'resource'],
} as const;
/** Each item overrides the request's defaults: every part is optional here, checked once merged. */
const ITEM = {
  type: 'object',
  properties: { subject: SUBJECT, action: ACTION, resource: RESOURCE, context: PROPERTIES },
} as const;
const EVALUATIONS_MAX = 1000;
const EVALUATIONS = {
  type: 'object',
  properties: { ...ITEM.properties, evaluations: { type: 'array', items: ITEM, maxItems: EVALUATIONS_MAX } },
  required: ['evaluations'],
} as const;
const SEARCH_SUBJECT = {
  type: 'object',
  properties: { subject: SUBJECT_TYPE, action: ACTION, resource: RESOURCE, context: PROPERTIES, page: PAGE },
  required: ['subject', 'action', 'resource'],
} as const;
const SEARCH_RESOURCE = {
  type: 'object',
  properties: { subject: SUBJECT, action: ACTION, resource: RESOURCE_TYPE, context: PROPERTIES, page: PAGE },
  required: ['subject', 'action', 'resource'],
} as const;
const SEARCH_ACTION = {
  type: 'object',
  properties: { subject: SUBJECT, resource: RESOURCE, context: PROPERTIES, page: PAGE },
  required: ['subject', 'resource'],
} as const;
/** Every search answers in one page: the token that would ask for the next is always null. */
const LAST_PAGE = { next_token: null };

/**
 * AuthZEN 1.0 at the decision point (api-notes "Decision point: list queries"): evaluations are /allowed
 * checks (repo/authzen.ts `checkOf`), searches list what /allowed allows.
 */
export async function authzenRoutes(base: FastifyInstance, { db, envOf }: DecisionPoint) {
  const app = typed(base);
  app.post('/access/v1/evaluation', { schema: { body: EVALUATION, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    return { decision: await evaluate(db, env.envId, req.body) };
  });

  app.post('/access/v1/evaluations', { schema: { body: EVALUATIONS, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    const { evaluations, ...defaults } = req.body;
    const merged = evaluations.map((item, i) => {
      const e = { ...defaults, ...item };
      for (const part of ['subject', 'action', 'resource'] as const)
        if (!e[part])
          throw invalid(['body', 'evaluations', i, part], 'missing here and in the request: one of them must give it');
      return e as Evaluation;
    });
    const answers = [];
    for (const e of merged) answers.push({ decision: await evaluate(db, env.envId, e) });
    return { evaluations: answers };
  });

  app.post('/access/v1/search/subject', { schema: { body: SEARCH_SUBJECT, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    return { results: await searchSubjects(db, env.envId, req.body), page: LAST_PAGE };
  });

  app.post('/access/v1/search/resource', { schema: { body: SEARCH_RESOURCE, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    return { results: await searchResources(db, env.envId, req.body), page: LAST_PAGE };
  });

  app.post('/access/v1/search/action', { schema: { body: SEARCH_ACTION, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    return { results: await searchActions(db, env.envId, req.body), page: LAST_PAGE };
  });
}
