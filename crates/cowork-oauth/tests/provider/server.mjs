// A real OpenID provider for the cowork-oauth integration tests: `node server.mjs <port>
// [--short-access-token-ttl <seconds>]` serves oidc-provider on http://127.0.0.1:<port> and prints
// "ready" once it listens, and exits when its stdin closes (the test process that started it
// ended, however it ended). Nothing here is for production: keys are generated per run, storage
// is in memory, and `devInteractions` accepts any login.
//
// Clients (both native, public, PKCE required — oidc-provider's default for auth method "none"):
// - `cowork-test`: the shared sign-in; access tokens live an hour.
// - `cowork-short`: an `ownClient` sign-in whose access tokens live `--short-access-token-ttl`
//   seconds (default 5), so every use refreshes and rotates its refresh token.
// A native client's loopback redirect URI matches on any port (RFC 8252 §7.3), path exact.
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const args = process.argv.slice(2);
const port = Number(args[0]);
if (!Number.isInteger(port) || port <= 0) {
  console.error('usage: node server.mjs <port> [--short-access-token-ttl <seconds>]');
  process.exit(2);
}
const ttlFlag = args.indexOf('--short-access-token-ttl');
const shortTtl = ttlFlag === -1 ? 5 : Number(args[ttlFlag + 1]);

const nativeClient = (clientId) => ({
  client_id: clientId,
  application_type: 'native',
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  redirect_uris: ['http://127.0.0.1/oauth/callback'],
});

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [nativeClient('cowork-test'), nativeClient('cowork-short')],
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig' }] },
  cookies: { keys: ['cowork-oauth-test-only'] },
  // Scopes a capability may ask for, besides the OpenID ones.
  scopes: ['openid', 'offline_access', 'email', 'calendar.read', 'mail.read', 'mail.send'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  features: {
    devInteractions: { enabled: true },
    revocation: { enabled: true },
    userinfo: { enabled: true },
  },
  pkce: { required: () => true },
  // Public clients get a rotated refresh token on every use (oidc-provider's default for them,
  // spelled out here because the tests depend on it); reuse of a rotated one revokes the grant.
  rotateRefreshToken: () => true,
  ttl: {
    AccessToken: (_ctx, _token, client) => (client.clientId === 'cowork-short' ? shortTtl : 3600),
    AuthorizationCode: 60,
    IdToken: 3600,
    Interaction: 600,
    Session: 3600,
    Grant: 3600,
    RefreshToken: 3600,
  },
  async findAccount(_ctx, sub) {
    // devInteractions' login field becomes the account id: the tests log in with an email.
    return {
      accountId: sub,
      async claims() {
        return { sub, email: sub, email_verified: true };
      },
    };
  },
});

const server = provider.listen(port, '127.0.0.1', () => {
  console.log('ready');
});
server.on('error', (error) => {
  console.error(`cannot listen on 127.0.0.1:${port}: ${error.message}`);
  process.exit(1);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
