// GitHub App endpoints: they take the App's JWT, not a token.
import * as shape from '../objects.mjs';
import { created, HttpError, notFound, ok, unprocessable } from './common.mjs';

function requireAppJwt(call) {
  if (!call.identity) throw new HttpError(401, 'A JSON web token could not be decoded');
  if (call.identity.kind !== 'app') throw new HttpError(401, 'A JSON web token could not be decoded');
  return call.identity.app;
}

export const operations = {
  'apps/get-authenticated': (call) => ok(shape.app(call.urls, requireAppJwt(call))),

  'apps/get-repo-installation': (call) => {
    const app = requireAppJwt(call);
    const repo = call.state.repo(call.params.owner, call.params.repo);
    const installation = repo && call.authority.installationFor(repo);
    if (!installation) throw notFound();
    return ok(shape.installation(call.urls, app, installation));
  },

  'apps/create-installation-access-token': (call) => {
    const app = requireAppJwt(call);
    const installation = call.authority.installation(call.params.installation_id);
    if (!installation) throw notFound();
    let repositories = installation.repositories;
    if (call.body.repositories) {
      repositories = call.body.repositories.map((name) => {
        const repo = installation.repositories.find((candidate) => candidate.name === name);
        if (!repo) throw unprocessable(`There is at least one repository that does not exist or is not accessible to the parent installation.`, { resource: 'Installation', name: 'repositories' });
        return repo;
      });
    }
    const permissions = call.body.permissions || app.permissions;
    for (const [name, level] of Object.entries(permissions)) {
      const granted = app.permissions[name];
      if (!granted || (level === 'write' && granted !== 'write') || (level === 'admin' && granted !== 'admin')) {
        throw unprocessable(`The permissions requested are not granted to this installation.`, { resource: 'Installation', name: 'permissions' });
      }
    }
    const { token, expiresAt } = call.authority.issueInstallationToken(installation, repositories);
    return created({
      token,
      expires_at: expiresAt,
      permissions,
      repository_selection: 'selected',
    });
  },
};
