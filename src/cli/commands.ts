import { refreshFlags } from './refresh-flags.js';
import type { Command } from 'commander';
import { targetFlags } from './target-flags.js';

/**
 * Every command, visible in one place. Each action imports its module on demand and is thin: parse
 * options, call one use-case function, hand the result to a renderer, set the exit code.
 */
export function registerCommands(program: Command): void {
  registerServe(program);
  registerValidate(program);
  registerPlanCommands(program);
  registerInit(program);
  registerRequests(program);
  registerReview(program);
  registerAccessCommands(program);
  registerQueries(program);
  registerEnvironments(program);
}

/** `roster serve`: the local service. */
function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the local /v2 authorization service (fastify over SQLite, or PostgreSQL with --database)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '7766')
    .option('--data <dir>', 'data directory (SQLite file roster.db inside)', process.env.ROSTER_DATA_DIR ?? './.roster')
    .option(
      '--database <url>',
      'PostgreSQL URL postgres://user@host:5432/db[?schema=NAME&pool=N] (or ROSTER_DATABASE_URL); several processes may share it; default: SQLite under --data',
    )
    .option('--api-key <key>', 'organisation-wide API key (or ROSTER_API_KEY)')
    .option(
      '--env-key <project/env=key>',
      'environment-scoped key (its environment is created unless it exists); repeatable',
      collect,
      [],
    )
    .option(
      '--create-env <project/env>',
      'create this project and environment at start unless they exist; repeatable (otherwise only POST /v2/projects and /v2/projects/{p}/envs create them)',
      collect,
      [],
    )
    .option('--quiet', 'no request logs')
    .option(
      '--decision-log-max-age <duration>',
      'keep logged decisions this long (docs/server.md, "Decision log")',
      '30d',
    )
    .option('--decision-log-max-count <n>', 'keep at most this many logged decisions, the newest', '1000000')
    .option('--no-decision-log', 'log no decisions (the audit logs stay empty)')
    .option(
      '--history-max-age <duration>',
      'keep the change history this long (docs/server.md, "Change history")',
      '30d',
    )
    .option('--history-max-count <n>', 'keep at most this many calls in the change history, the newest', '100000')
    .option('--no-history', 'keep no change history (GET /v2/history answers 404: clients read everything)')
    .option(
      '--history-org-key-only',
      'let only the organisation key read the change history (403 for environment keys)',
    )
    .action(async (opts) => (await import('./commands/serve.js')).serveCommand(opts));
}

/** `roster validate`. */
function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check configuration files: schema, then semantic rules (exit 1 when invalid)')
    .argument('[paths...]', 'files or directories (default: roster.yaml or roster/)')
    .option('--format <format>', 'text | json | github', 'text')
    .option(
      '--env <env>',
      'in a directory of several environments (shared/, envs/<env>/): the one to validate (default: each)',
    )
    .action(async (paths: string[], opts) => (await import('./commands/validate.js')).validateCommand(paths, opts));
}

/** `roster init`. */
function registerInit(program: Command): void {
  targetFlags(
    program
      .command('init')
      .description(
        'scaffold a configuration repository: roster/, the CI workflow, .gitignore, package.json (docs/ci.md)',
      )
      .argument('[dir]', 'the repository (default: the working directory)')
      .option(
        '--force',
        "replace the configuration (roster/roster.yaml, or with --environments the layout's files) and the workflow when they exist",
      )
      .option(
        '--from-live',
        'fill roster/ from the live environment (what `roster export` writes) instead of the starter',
      )
      .option(
        '--environments <list>',
        'several environments (dev,staging,prod): roster/shared/, roster/envs/<env>/ each, and a workflow planning and applying each',
      ),
    { only: 'with --from-live: ' },
  ).action(async (dir: string | undefined, opts) => (await import('./commands/init.js')).initCommand(dir, opts));
}

/** `roster requests` and its verbs, `requests adopt`, `requests expire`. */
function registerRequests(program: Command): void {
  // Access requests: `requests` for scripts, CI and chat bots; `review`, the reviewer's terminal UI.
  const requests = program
    .command('requests')
    .description('access requests: list, get, create, approve, deny, cancel, update, revoke; adopt, expire');
  const requestVerb = (verb: string, description: string, withId: boolean) => {
    const cmd = requests.command(verb).description(description);
    if (withId) cmd.argument('<id>', 'the access request id, or a unique prefix of it');
    return targetFlags(cmd)
      .requiredOption('--user <user>', 'the acting user (the requester, or a reviewer) (required)')
      .requiredOption('--tenant <tenant>', 'the tenant the request is in (required)')
      .option(
        '--config <key>',
        withId
          ? 'the element configuration (default: look in every one)'
          : verb === 'list'
            ? 'only this element configuration (default: every one, merged)'
            : 'the element configuration naming the reviewers (default: default)',
      )
      .option('--format <format>', 'text | json', 'text')
      .action(async (...args: unknown[]) => {
        const opts = args[withId ? 1 : 0] as import('./commands/requests.js').RequestsOptions;
        const id = withId ? (args[0] as string) : undefined;
        await (
          await import('./commands/requests.js')
        ).requestsCommand(verb as import('./commands/requests.js').RequestsVerb, id, opts);
      });
  };
  requestVerb('list', 'list the requests the user may see (own and reviewed)', false)
    .option('--status <status>', 'pending | approved | denied | canceled')
    .option('--role <role>', 'only requests for this role')
    .option('--resource <resource>', 'only requests on this resource type')
    .option('--instance <key>', 'only requests on this instance: a key, or type:key')
    .option('--requester <user>', "only this user's requests (a user key)")
    .option('--page <n>', 'page (from 1)')
    .option('--per-page <n>', 'rows a page (up to 100)');
  requestVerb('get', 'show one request', true);
  requestVerb('create', 'ask for a role (on an instance, or tenant-wide)', false)
    .requiredOption('--role <role>', 'the role asked for (required)')
    .option('--resource <resource>', 'the resource type of the instance (with --instance KEY); absent: tenant-wide')
    .option('--instance <key>', 'the instance: a key (with --resource), or type:key')
    .option('--reason <text>', 'why, for the reviewers');
  requestVerb('approve', 'approve (grants the role)', true)
    .option('--comment <text>', 'a note for the requester')
    .option('--role <role>', 'grant this role instead of the one asked');
  requestVerb('deny', 'deny', true).option('--comment <text>', 'a note for the requester');
  requestVerb('cancel', 'cancel your own request', true).option('--reason <text>', 'why, for the reviewers');
  requestVerb('update', 'comment (or change the role) without deciding', true)
    .option('--comment <text>', 'a note on the request')
    .option('--role <role>', 'change the role asked');
  requestVerb('revoke', 'remove the role assignment an approved request made (the request stays approved)', true);
  targetFlags(
    requests
      .command('adopt')
      .description('declare the grants of approved access requests in the configuration files (docs/plan.md)'),
  )
    .argument('[paths...]', 'configuration files or directories (default: roster.yaml or roster/)')
    .option('--dry-run', 'print the edit as a diff; write nothing')
    .option('--format <format>', 'text | json', 'text')
    .option('--request <id>', 'only the grant of this request (an id or a unique prefix); repeatable', collect, [])
    .option('--config <key>', 'only grants approved through this element configuration; repeatable', collect, [])
    .option('--with-lifetime', 'also adopt grants whose configuration has grant_for (they become permanent)')
    .action(async (paths: string[], opts) => (await import('./commands/adopt.js')).adoptCommand(paths, opts));
  targetFlags(
    requests
      .command('expire')
      .description(
        'revoke the grants of approved access requests whose grant_for is over, and nothing else (for a schedule)',
      ),
  )
    .argument('[paths...]', 'configuration files or directories (default: roster.yaml or roster/)')
    .option('--dry-run', 'list what would be revoked; change nothing')
    .option('--format <format>', 'text | json', 'text')
    .option('--concurrency <n>', 'revocations in flight at once', '8')
    .action(async (paths: string[], opts) => (await import('./commands/expire.js')).expireCommand(paths, opts));
}

/** `roster review`: the reviewer's terminal UI. */
function registerReview(program: Command): void {
  targetFlags(
    program
      .command('review')
      .description('review access requests in the terminal (needs a TTY; see `roster requests`)'),
  )
    .requiredOption('--user <user>', 'the reviewer (required)')
    .requiredOption('--tenant <tenant>', 'the tenant to review (required)')
    .option('--config <key>', 'only this element configuration (default: every user-management one, in one queue)')
    .option('--readonly', 'browse only: every decision key is off')
    .action(async (opts) => (await import('./commands/review.js')).reviewCommand(opts));
}

/** `roster check` and `roster explain`. */
function registerAccessCommands(program: Command): void {
  // Access: assertions, explanations and the live environment as configuration (docs/check.md).
  targetFlags(program.command('check').description("evaluate the configuration's assertions (exit 1 when one fails)"))
    .argument('[paths...]', 'configuration files or directories (default: roster.yaml or roster/)')
    .option('--live', 'on the live service (POST /allowed/bulk) instead of the configuration')
    .option('--pdp-url <url>', PDP_URL)
    .option('--format <format>', 'text | json | junit', 'text')
    .option('--verbose', 'print passing assertions too (text, json)')
    .option('--update', 'rewrite the exactly: lists of exact-set assertions from what is found (comments kept)')
    .action(async (paths: string[], opts) => (await import('./commands/check.js')).checkCommand(paths, opts));
  targetFlags(
    program.command('explain').description('why a user has or lacks a permission or role on an instance: every path'),
  )
    .argument('<user>', 'the user key')
    .argument('<action-or-role>', 'an action (write, document:write) or a role key')
    .argument('<instance>', 'the resource instance, type:key')
    .argument('[paths...]', 'configuration files or directories (default: roster.yaml or roster/)')
    .option('--live', 'explain from the live service instead of the configuration')
    .option('--format <format>', 'text | json', 'text')
    .option(
      '--with <json>',
      'attributes the check passes, as an assertion\'s with: {"user": {...}, "resource": {...}, "context": {...}}',
    )
    .option(
      '--user-attr <key=value>',
      'a user attribute the check passes (value read as JSON when it is); repeatable',
      collect,
      [],
    )
    .option('--resource-attr <key=value>', 'a resource attribute the check passes; repeatable', collect, [])
    .option('--context <key=value>', 'a context value the check passes; repeatable', collect, [])
    .action(async (user: string, subject: string, instance: string, paths: string[], opts) =>
      (await import('./commands/explain.js')).explainCommand(user, subject, instance, paths, opts),
    );
}

/** `roster who-can` and `roster what-can`. */
function registerQueries(program: Command): void {
  // Lists: who may do an action on an instance, what a user may do it on (docs/cli.md).
  attributeFlags(
    targetFlags(
      program.command('who-can').description('every user who may do an action on an instance, each with the ways in'),
    )
      .argument('<action>', 'an action (approve, expense:approve)')
      .argument('<instance>', 'the resource instance, type:key')
      .argument('[paths...]', 'configuration files or directories (default: roster.yaml or roster/)')
      .option('--live', 'from the decision point (POST /authorized_users) instead of the configuration')
      .option('--pdp-url <url>', PDP_URL)
      .option('--tenant <tenant>', "the check's tenant (default: the instance's)")
      .option('--format <format>', 'text | json', 'text'),
  ).action(async (action: string, instance: string, paths: string[], opts) =>
    (await import('./commands/who-can.js')).whoCanCommand(action, instance, paths, opts),
  );
  attributeFlags(
    targetFlags(
      program.command('what-can').description('every instance on which a user may do an action, each with the ways in'),
    )
      .argument('<user>', 'the user key')
      .argument('<action>', 'an action (read, document:read)')
      .argument('[paths...]', 'configuration files or directories (default: roster.yaml or roster/)')
      .option('--type <resource>', 'only instances of this resource')
      .option('--live', 'from the decision point (POST /user-permissions) instead of the configuration')
      .option('--pdp-url <url>', PDP_URL)
      .option('--tenant <tenant>', 'only instances in this tenant')
      .option('--format <format>', 'text | json', 'text'),
  ).action(async (user: string, action: string, paths: string[], opts) =>
    (await import('./commands/what-can.js')).whatCanCommand(user, action, paths, opts),
  );
}

/** `roster diff` and `roster export`. */
function registerEnvironments(program: Command): void {
  targetFlags(
    program
      .command('diff')
      .description(
        'what differs between two environments of a configuration directory (shared/, envs/<env>/): declared, or with --live live',
      ),
  )
    .argument('<a>', 'an environment (its folder envs/<a>/)')
    .argument('<b>', 'another environment')
    .argument('[dir]', 'the configuration directory (default: roster/)')
    .option('--live', 'compare their live states instead of their declared ones')
    .option('--format <format>', 'text | json', 'text')
    .option('--detailed-exitcode', 'exit 2 when they differ (0 when not, 1 on error)')
    .action(async (a: string, b: string, dir: string | undefined, opts) =>
      (await import('./commands/diff.js')).diffCommand(a, b, dir === undefined ? [] : [dir], opts),
    );
  targetFlags(
    program.command('export').description('write the live environment as configuration (canonical, deterministic)'),
  )
    .option('--out <dir>', 'write <dir>/roster.yaml; - for stdout (default)')
    .option(
      '--diff <path>',
      'compare with a file (a unified diff) or a configuration directory (the objects that differ); exit 1 when they differ',
    )
    .action(async (opts) => (await import('./commands/export.js')).exportCommand(opts));
}

/** Commands that plan: `plan` and `apply`. */
function registerPlanCommands(program: Command): void {
  targetFlags(
    refreshFlags(
      program
        .command('plan')
        .description('show what apply would change: diff the configuration against the live service')
        .argument('[paths...]', 'configuration files or directories (default: roster.yaml or roster/)')
        .option('--prune', 'also delete live objects absent from the configuration (in the sections it has)')
        .option('--out <file>', 'save the plan (with a fingerprint of the live state) for `apply --plan`')
        .option('--format <format>', 'text | json | markdown', 'text')
        .option('--detailed-exitcode', 'exit 2 when there are changes (0 none, 1 error)')
        .option('--access-permissions', 'access changes per permission (document:write) instead of per role')
        .option(
          '--replay [since]',
          'decide the recent decisions of the audit log again after the plan and list those that change: since a duration (7d, 12h) or a date; default 7d, the newest 10,000',
        ),
    ),
  ).action(async (paths: string[], opts) => (await import('./commands/plan.js')).planCommand(paths, opts));

  targetFlags(
    program
      .command('drift')
      .description(
        'what differs between the live service (read in full) and the configuration, and who changed each object and when (the change history)',
      )
      .argument('[paths...]', 'configuration files or directories (default: roster.yaml or roster/)')
      .option('--format <format>', 'text | markdown | json', 'text')
      .option('--since <when>', 'how far back the change history is searched: a duration (30d, 12h) or a date', '30d')
      .option('--prune', 'count live objects absent from the configuration as drift too (as plan --prune)')
      .option('--detailed-exitcode', 'exit 2 when something drifted (0 nothing, 1 error)'),
  ).action(async (paths: string[], opts) => (await import('./commands/drift.js')).driftCommand(paths, opts));

  targetFlags(
    refreshFlags(
      program
        .command('apply')
        .description('make the live service match the configuration (or a saved plan)')
        .argument('[paths...]', 'configuration files or directories (default: roster.yaml or roster/)')
        .option('--plan <file>', 'apply a plan saved by `plan --out` (refused if the live state changed since)')
        .option(
          '--format <format>',
          'text | json: the outcome with every change id on stdout (the plan goes to stderr)',
          'text',
        )
        .option('--prune', 'also delete live objects absent from the configuration (in the sections it has)')
        .option('--yes', 'do not ask for confirmation (required when not on a terminal)')
        .option(
          '--allow-failing-assertions',
          'apply although assertions of the configuration fail on the state after the plan (printed loudly)',
        )
        .option('--access-permissions', 'access changes per permission (document:write) instead of per role')
        .option(
          '--concurrency <n>',
          'changes in flight at once (default: 8; 16 when not paced: the embedded service, a loopback --api-url, --pacing none)',
        )
        .option(
          '--max-deletes <n>',
          'refuse a plan deleting more objects (default: 25% of the managed live objects when more than 10)',
        )
        .option('--pdp-url <url>', PDP_URL)
        .option(
          '--no-verify-decisions',
          'do not ask the decision point, after the writes, whether it decides what the plan announced',
        )
        .option(
          '--decision-wait <duration>',
          'how long the decision point may take to agree after the writes (default 15s)',
        )
        .option(
          '--verify <how>',
          'after the writes, read again: changes (what the apply changed) | full (the whole environment)',
          'changes',
        ),
    ),
  ).action(async (paths: string[], opts) => (await import('./commands/apply.js')).applyCommand(paths, opts));
}

const PDP_URL =
  'the policy decision point that answers POST /allowed/bulk (or ROSTER_PDP_URL); default: the API URL, as roster serve and the embedded service answer decisions';

/** The options that pass attributes to a check, as `explain` takes them (check-attributes.ts). */
function attributeFlags(command: Command): Command {
  return command
    .option(
      '--with <json>',
      'attributes the check passes, as an assertion\'s with: {"user": {...}, "resource": {...}, "context": {...}}',
    )
    .option('--user-attr <key=value>', 'a user attribute the check passes; repeatable', collect, [])
    .option('--resource-attr <key=value>', 'a resource attribute the check passes; repeatable', collect, [])
    .option('--context <key=value>', 'a context value the check passes; repeatable', collect, []);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
