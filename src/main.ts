// First: refuses an older Node.js before anything else of Herald's runs.
import './node-version.js';
// The default export, not a named one: Node 20 has no `enableCompileCache`, and a named import of it would fail to
// link before node-version.js could say what to do.
import nodeModule from 'node:module';
import { ConfigError, loadConfig, tracingOn } from './config.js';

/** `npm start`: the API and the worker in one process (src/server.ts). */
async function main() {
  // Node's on-disk cache of the code it compiles (its default folder in the OS's temporary directory): a later start
  // reads the server's modules compiled instead of compiling them again (BENCHMARKS.md, "Start time"). Where the folder
  // cannot be written, Node starts as before; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  nodeModule.enableCompileCache();
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const roles = {
    api: config.HERALD_ROLE !== 'worker',
    worker: config.HERALD_ROLE !== 'api',
  };
  // Tracing first, before the server's modules load (its pg instrumentation patches pg as it loads); tracing off,
  // nothing of the OpenTelemetry SDK loads at all.
  const tracing = tracingOn(config) ? (await import('./telemetry/tracing.js')).startTracing() : undefined;
  // Loaded once the configuration is known good: a bad variable is reported without loading the whole server.
  const { runHerald } = await import('./server.js');
  await runHerald(config, roles, tracing);
}

main().catch((error) => {
  process.stderr.write(`Herald failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
