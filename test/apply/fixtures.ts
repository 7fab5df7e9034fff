/** A small configuration with one of everything, as a user would write it. */
export const SMALL = `version: 1
resources:
  document: { name: Document, actions: [read, write] }
roles:
  viewer: { name: Viewer, permissions: [document:read] }
  editor: { name: Editor, permissions: [document:read, document:write] }
tenants:
  acme: { name: Acme }
users:
  alice: { email: alice@acme.test, tenants: [acme], roles: [viewer] }
  bob: { email: bob@acme.test, tenants: [acme] }
resource_instances:
  document:readme: { tenant: acme }
groups:
  team:eng:
    tenant: acme
    members: [alice, bob]
    roles: [{ role: editor, on: document:readme }]
access_requests:
  default: { name: Default, reviewer_roles: [editor] }
`;
