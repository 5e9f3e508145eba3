/**
 * A setup file of the projects whose files share a worker's module graph (`isolate: false`,
 * vitest.config.ts; docs/decisions/0036): every file starts from the environment the worker started
 * with, whatever the file before it set and left (a test that turns the allocation switch on and
 * "restores" it by assigning `undefined` leaves the string "undefined", not nothing).
 */
const started = ((
  globalThis as { serenityWorkerEnvironment?: NodeJS.ProcessEnv }
).serenityWorkerEnvironment ??= {
  ...process.env,
});

for (const name of Object.keys(process.env)) {
  if (!(name in started)) delete process.env[name];
}
Object.assign(process.env, started);
