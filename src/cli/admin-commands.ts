import { Argument, InvalidArgumentError, type Command } from 'commander';
import pino from 'pino';
import type { AdminConfig } from './config';
import { withAdmin as withKafkaAdmin } from '../adapters/kafka/admin-session';
import { addPartner, grantServiceAcls, listPartners, partnerRules, removePartner, serviceRules, type Change } from '../adapters/kafka/partner-provisioning';
import { PARTNER_ID } from '../contract/partner-topics';
import { PRINCIPAL, describeRule, partnerTopicNames, type AclRule } from '../security/kafka-acls';
import type { CliIo } from './io';

/**
 * `wholesale admin …`: provisioning on the Kafka cluster with the admin principal's credentials
 * (KAFKA_SASL_* / KAFKA_TLS_*): a partner's topics and ACLs, and the service's least-privilege ACLs.
 */
export interface AdminCommandDeps {
  io: CliIo;
  loadAdminConfig: (overrides: Record<string, string>) => AdminConfig;
  overrides: (command: Command) => Record<string, string>;
}

const principalArgument = (raw: string): string => {
  if (!PRINCIPAL.test(raw)) throw new InvalidArgumentError('expected User:<name> (letters, digits, . _ @ + -)');
  return raw;
};
const partnerIdArgument = (raw: string): string => {
  if (!PARTNER_ID.test(raw)) throw new InvalidArgumentError('expected a partner id usable in a topic name (letters, digits, _ -; at most 64)');
  return raw;
};

/** One admin session with the admin principal's connection, logging on stderr. */
const withAdmin = <T>(config: AdminConfig, work: Parameters<typeof withKafkaAdmin<T>>[1]): Promise<T> =>
  withKafkaAdmin({ ...config.kafka, log: pino({ level: config.logLevel, name: 'wholesale-admin' }, pino.destination(2)) }, work);

function printRules(io: CliIo, rules: readonly AclRule[], changed: readonly AclRule[], mark: string): void {
  const changedLines = new Set(changed.map(describeRule));
  for (const line of rules.map(describeRule)) io.stdout(`  ${changedLines.has(line) ? mark : '='} ${line}`);
}

type Verb = 'created' | 'deleted';

/** Human: a summary line, the topics changed, every rule marked + / - (changed) or = (already so). JSON: one line. */
function printChange(io: CliIo, json: boolean, subject: Record<string, string>, change: Change, verb: Verb): void {
  if (json) {
    io.stdout(JSON.stringify({ ...subject, rules: change.rules, [`${verb}Rules`]: change.changedRules, [`${verb}Topics`]: change.changedTopics }));
    return;
  }
  io.stdout(`${Object.values(subject).join(' ')}: ${change.changedRules.length} ACL(s) ${verb}, ${change.changedTopics.length} topic(s) ${verb}`);
  for (const topic of change.changedTopics) io.stdout(`  topic ${topic}`);
  printRules(io, change.rules, change.changedRules, verb === 'created' ? '+' : '-');
}

/** What a dry run would do, printed like a change; stderr says nothing was sent. */
function printPlan(io: CliIo, json: boolean, subject: Record<string, string>, rules: AclRule[], topics: string[]): void {
  printChange(io, json, subject, { rules, changedRules: rules, changedTopics: topics }, 'created');
  io.stderr('dry run: nothing was sent to Kafka');
}

/** Adds `admin` with its provisioning sub-commands; returns it so other operator tools hang under it too. */
export function addAdminCommands(program: Command, deps: AdminCommandDeps): Command {
  const { io } = deps;
  const json = (command: Command): boolean => Boolean(command.optsWithGlobals<{ json?: boolean }>().json);
  const config = (command: Command): AdminConfig => deps.loadAdminConfig(deps.overrides(command));

  const admin = program
    .command('admin')
    .description("operator tools: partners' topics and ACLs, the service's ACLs (with the admin principal, KAFKA_SASL_*; docs/security.md), sealed dead letters");
  const partner = admin.command('partner').description("a partner's topics (<prefix><partnerId>.…) and its ACLs");
  const partnerCommand = (name: string, description: string): Command =>
    partner.command(name).description(description).addArgument(new Argument('<partnerId>', 'the partner (root customer) id').argParser(partnerIdArgument));

  partnerCommand('add', "create the partner's six topics and its ACLs (idempotent: what exists is left as it is)")
    .requiredOption('--principal <User:name>', "the partner's Kafka principal", principalArgument)
    .option('--dry-run', 'print the topics and ACLs without connecting')
    .addHelpText('after', '\nExample:\n  wholesale admin partner add 100000108464 --principal User:partner-100000108464')
    .action(async (partnerId: string, options: { principal: string; dryRun?: boolean }, self: Command) => {
      const settings = config(self);
      const subject = { partner: partnerId, principal: options.principal };
      if (options.dryRun) {
        printPlan(io, json(self), subject, partnerRules(settings, partnerId, options.principal), partnerTopicNames(settings.partnerTopicPrefix, partnerId));
        return;
      }
      const change = await withAdmin(settings, (client) => addPartner(client, settings, partnerId, options.principal));
      printChange(io, json(self), subject, change, 'created');
    });

  partnerCommand('remove', "delete the partner's ACLs (of --principal, else of every principal holding its namespace)")
    .option('--principal <User:name>', "only this principal's rights", principalArgument)
    .option('--delete-topics', "also delete the partner's topics and the records on them")
    .action(async (partnerId: string, options: { principal?: string; deleteTopics?: boolean }, self: Command) => {
      const settings = config(self);
      const change = await withAdmin(settings, (client) => removePartner(client, settings, partnerId, { principal: options.principal, deleteTopics: Boolean(options.deleteTopics) }));
      printChange(io, json(self), { partner: partnerId }, change, 'deleted');
    });

  partner
    .command('list')
    .description('the partners provisioned: a namespace ACL or topics under the partner prefix')
    .action(async (_options: unknown, self: Command) => {
      const settings = config(self);
      const partners = await withAdmin(settings, (client) => listPartners(client, settings));
      if (json(self)) {
        io.stdout(JSON.stringify({ partners }));
        return;
      }
      if (partners.length === 0) io.stdout(`no partner under ${settings.partnerTopicPrefix}`);
      for (const found of partners) {
        io.stdout(`${found.partnerId}  ${found.principals.length > 0 ? found.principals.join(', ') : '(no ACL)'}`);
        for (const topic of found.topics) io.stdout(`  ${topic}`);
      }
    });

  admin
    .command('service-acls')
    .description('grant the service principal its least privilege (idempotent)')
    .requiredOption('--principal <User:name>', "the service's Kafka principal", principalArgument)
    .option('--topics-precreated', "the operator creates the service's topics beforehand: no Create right")
    .option('--dry-run', 'print the ACLs without connecting')
    .addHelpText('after', '\nExample:\n  wholesale admin service-acls --principal User:wholesale-svc --topics-precreated')
    .action(async (options: { principal: string; topicsPrecreated?: boolean; dryRun?: boolean }, self: Command) => {
      const settings = config(self);
      const grant = { createsTopics: !options.topicsPrecreated };
      const subject = { service: options.principal };
      if (options.dryRun) {
        printPlan(io, json(self), subject, serviceRules(settings, options.principal, grant), []);
        return;
      }
      const change = await withAdmin(settings, (client) => grantServiceAcls(client, settings, options.principal, grant));
      printChange(io, json(self), subject, change, 'created');
    });
  return admin;
}
