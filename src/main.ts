import { buildApp } from './app.js';
import { ConfigError, loadConfig, surfaceUrls, type Config } from './config.js';
import { openDatabase, type OpenDatabase } from './db/open.js';
import { bootstrapWorkspace, type BootstrapResult } from './provisioning.js';
import { countWorkspaces } from './repositories/workspaces.js';

const FIRST_WORKSPACE = 'staging';

/** Printed to stdout once, outside the JSON log stream, so credentials never reach log storage. */
function printCredentials(config: Config, credentials: BootstrapResult) {
  const { base_url, management_url } = surfaceUrls(config);
  process.stdout.write(
    [
      '',
      `Herald created workspace "${credentials.workspace}". These credentials are shown once: store them now.`,
      `  service token (management): ${credentials.service_token}`,
      `  API key (base):             ${credentials.api_key}`,
      `  workspace key / secret:     ${credentials.workspace_key} / ${credentials.workspace_secret}`,
      '',
      `  curl -H "Authorization: ServiceToken ${credentials.service_token}" ${management_url}v1/workspace/`,
      `  curl -H "Authorization: Bearer ${credentials.api_key}" ${base_url}v1/user/some-user/`,
      '',
    ].join('\n') + '\n',
  );
}

function printHowToAuthenticate(config: Config) {
  const { base_url, management_url } = surfaceUrls(config);
  process.stdout.write(
    `Herald: base API ${base_url} (Authorization: Bearer <API_KEY>), management API ${management_url} ` +
      `(Authorization: ServiceToken <TOKEN>), reference ${base_url}docs. ` +
      `New credentials: npx herald bootstrap --workspace ${FIRST_WORKSPACE}\n`,
  );
}

async function main() {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const database: OpenDatabase = await openDatabase(config);
  const app = await buildApp({ config, db: database.db, engine: database.engine, secretBox: database.secretBox });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    try {
      await app.close();
      await database.close();
      app.log.info('shut down cleanly');
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const firstStart = database.engine === 'embedded' && (await countWorkspaces(database.db)) === 0;
  await app.listen({ port: config.PORT, host: config.HOST });
  if (firstStart) printCredentials(config, await bootstrapWorkspace(database.db, database.secretBox, { slug: FIRST_WORKSPACE, actor: null }));
  printHowToAuthenticate(config);
}

main().catch((error) => {
  process.stderr.write(`Herald failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
