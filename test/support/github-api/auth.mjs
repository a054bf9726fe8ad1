// Who is calling: a configured token (GITHUB_TOKEN or a personal access token), an installation
// token the double issued, or a GitHub App's JWT, verified with the App's public key.
import { createPublicKey, randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';
import { GITHUB_ACTIONS_BOT, timestamp } from './state.mjs';

const INSTALLATION_TOKEN_LIFETIME_MS = 60 * 60 * 1000;
// GitHub refuses an App JWT whose exp is more than ten minutes after its iat.
const JWT_MAX_LIFETIME_S = 10 * 60;
const JWT_CLOCK_TOLERANCE_S = 60;

export class AuthError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function configError(key, value, expected) {
  return new Error(`GitHub double option ${key}: ${JSON.stringify(value)} is not valid; expected ${expected}`);
}

export class Authority {
  /**
   * options.githubToken: the GITHUB_TOKEN value (acts as github-actions[bot]);
   * options.tokens: { "<token>": "login" | { login, type } } for personal access tokens;
   * options.app: { id, slug, name, publicKey (PEM), installations: [{ id, account, repositories }] }.
   */
  constructor(state, options = {}) {
    this.state = state;
    this.tokens = new Map();
    if (options.githubToken !== undefined) {
      if (typeof options.githubToken !== 'string' || !options.githubToken) throw configError('githubToken', options.githubToken, 'a non-empty string');
      const bot = state.addUser(GITHUB_ACTIONS_BOT);
      this.tokens.set(options.githubToken, { kind: 'github-token', user: bot });
    }
    for (const [token, spec] of Object.entries(options.tokens || {})) {
      const user = state.addUser(typeof spec === 'string' ? { login: spec } : spec);
      this.tokens.set(token, { kind: 'personal', user });
    }
    this.app = options.app ? this.configureApp(options.app) : undefined;
  }

  configureApp(app) {
    if (!Number.isInteger(app.id) || app.id <= 0) throw configError('app.id', app.id, 'a positive integer');
    if (typeof app.slug !== 'string' || !/^[a-z0-9-]+$/.test(app.slug)) throw configError('app.slug', app.slug, 'a slug such as "perfgate"');
    let publicKey;
    try {
      publicKey = createPublicKey(app.publicKey);
    } catch (error) {
      throw configError('app.publicKey', String(app.publicKey).slice(0, 40), `a PEM public key (${error.message})`);
    }
    const owner = this.state.addUser({ login: app.owner || 'perfgate-dev', type: 'Organization' });
    const bot = this.state.addUser({ login: `${app.slug}[bot]`, id: app.botUserId, type: 'Bot' });
    const installations = (app.installations || []).map((installation, index) => {
      if (!Number.isInteger(installation.id)) throw configError(`app.installations[${index}].id`, installation.id, 'an integer');
      const repositories = (installation.repositories || []).map((fullName) => this.state.repoByFullName(`app.installations[${index}].repositories`, fullName));
      const account = this.state.addUser({ login: installation.account || repositories[0]?.owner.login, type: 'Organization' });
      return { id: installation.id, account, repositories };
    });
    return {
      id: app.id,
      slug: app.slug,
      clientId: app.clientId || `Iv1.${app.id.toString(16).padStart(16, '0')}`,
      name: app.name || app.slug,
      description: app.description ?? null,
      owner,
      bot,
      publicKey,
      permissions: app.permissions || { checks: 'write', issues: 'write', pull_requests: 'write', actions: 'write', metadata: 'read', statuses: 'write', members: 'read' },
      events: app.events || ['issue_comment', 'pull_request', 'check_run', 'workflow_run'],
      installations,
    };
  }

  /** Reads the Authorization header; null when there is none. Throws AuthError on a bad one. */
  async identify(header) {
    if (!header) return null;
    const match = /^(token|bearer)\s+(\S+)$/i.exec(header.trim());
    if (!match) throw new AuthError(401, 'Bad credentials');
    const credential = match[2];
    const known = this.tokens.get(credential);
    if (known) {
      if (known.expiresAt && Date.parse(known.expiresAt) <= Date.now()) throw new AuthError(401, 'Bad credentials');
      return known;
    }
    if (credential.split('.').length === 3) return this.verifyAppJwt(credential);
    throw new AuthError(401, 'Bad credentials');
  }

  async verifyAppJwt(jwt) {
    if (!this.app) throw new AuthError(401, 'A JSON web token could not be decoded');
    let payload;
    try {
      ({ payload } = await jwtVerify(jwt, this.app.publicKey, { algorithms: ['RS256'], clockTolerance: JWT_CLOCK_TOLERANCE_S }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) {
        throw new AuthError(401, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires");
      }
      throw new AuthError(401, 'A JSON web token could not be decoded');
    }
    if (String(payload.iss) !== String(this.app.id) && payload.iss !== this.app.clientId) {
      throw new AuthError(401, `'Issuer' claim ('iss') must be an Integer or the app's client ID`);
    }
    if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') {
      throw new AuthError(401, 'A JSON web token could not be decoded');
    }
    if (payload.exp - payload.iat > JWT_MAX_LIFETIME_S + JWT_CLOCK_TOLERANCE_S) {
      throw new AuthError(401, "'Expiration time' claim ('exp') is too far in the future");
    }
    return { kind: 'app', user: this.app.bot, app: this.app };
  }

  installation(id) {
    return this.app?.installations.find((installation) => installation.id === Number(id));
  }

  installationFor(repo) {
    return this.app?.installations.find((installation) => installation.repositories.includes(repo));
  }

  /** A new installation token: "ghs_" and 36 characters, valid for an hour, like GitHub's. */
  issueInstallationToken(installation, repositories) {
    const token = `ghs_${randomBytes(27).toString('base64url').slice(0, 36)}`;
    const expiresAt = timestamp(new Date(Date.now() + INSTALLATION_TOKEN_LIFETIME_MS));
    this.tokens.set(token, {
      kind: 'installation',
      user: this.app.bot,
      installationId: installation.id,
      repositories,
      expiresAt,
    });
    return { token, expiresAt };
  }
}

/** The short form a call record keeps of who made it. */
export function describeIdentity(identity) {
  if (!identity) return { kind: 'anonymous', login: null };
  const described = { kind: identity.kind, login: identity.user.login };
  if (identity.installationId !== undefined) described.installationId = identity.installationId;
  return described;
}
