/** The ENVIRONMENT section of `roster --help`: every variable Roster reads, and what it does. */
export const ENVIRONMENT_HELP = `
Environment:
  ROSTER_API_URL       the service to plan and apply against, e.g. https://api.example.com (as --api-url);
                       unset or empty: the embedded default over ./.roster
  ROSTER_API_KEY       the key for ROSTER_API_URL (or --api-key-file); for \`roster serve\`, its organisation key
  ROSTER_PDP_URL       the policy decision point (PDP) answering POST /allowed for check --live and apply's
                       decision check (as --pdp-url); unset: the API URL (roster serve answers decisions)
  ROSTER_PROJECT       project key when neither --project nor the configuration names one
  ROSTER_ENV           environment key when neither --env nor the configuration names one
  ROSTER_DATA_DIR      data directory of the embedded default and of \`roster serve\` (as --data)
  ROSTER_DATABASE_URL  \`roster serve\` on PostgreSQL: postgres://user@host:5432/db (as --database)
  NO_COLOR             any non-empty value: no colour (https://no-color.org)
  FORCE_COLOR          colour even without a terminal, e.g. in CI logs; 0 or false: no colour
  CI                   set (not empty, false or 0): never prompt (apply needs --yes), no live
                       progress line, no review TUI

Exit codes: 0 success; 1 an error to fix (configuration, flags, the service's answer, an unsafe plan);
2 changes planned (plan --detailed-exitcode only); 3 applied, but the decision point disagrees with the plan
(apply only); 70 a bug in Roster. Documentation: README.md and docs/.
`;
