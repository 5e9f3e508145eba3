import { type Command, InvalidArgumentError } from "commander";

import { signDevToken } from "../../auth/tokenVerifier.ts";
import { localAuthSecret } from "../../runtime/verifier.ts";
import { bootstrap } from "../bootstrap.ts";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveSeconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0)
    throw new InvalidArgumentError("must be a positive number of seconds");
  return Number(value);
}

export function registerToken(program: Command): void {
  program
    .command("token")
    .description("print a development JWT signed with the local secret")
    .requiredOption("--sub <userId>", "the user id (sub claim)")
    .option("--org <orgId>", "an org the user may act in (repeatable)", collect, [])
    .option("--admin", "grant the admin role", false)
    .option("--ttl <seconds>", "lifetime in seconds", positiveSeconds, 12 * 3600)
    .action(async (options: { sub: string; org: string[]; admin: boolean; ttl: number }) => {
      const { config } = bootstrap();
      const token = await signDevToken(await localAuthSecret(config), {
        sub: options.sub,
        orgs: options.org,
        admin: options.admin,
        ttlSeconds: options.ttl,
      });
      process.stdout.write(`${token}\n`);
    });
}
