import { backfillCommand } from './backfill.js';
import { checkReceiverCommand } from './check-receiver.js';
import type { Command } from './command.js';
import * as control from './control.js';
import { dashboardCommand } from './dashboard.js';
import { demoCommand } from './demo.js';
import { doctorCommand } from './doctor.js';
import { emulateCommand } from './emulate.js';
import { inboxCommand } from './inbox.js';
import { outboxCommand } from './outbox.js';
import { sendCommand } from './send.js';
import { signCommand } from './sign.js';
import { triggerCommand } from './trigger.js';
import { verifyCommand } from './verify.js';

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  demoCommand,
  emulateCommand,
  control.merchantCommand,
  control.branchCommand,
  control.ruleCommand,
  control.shipCommand,
  control.faultsCommand,
  control.latencyCommand,
  sendCommand,
  backfillCommand,
  outboxCommand,
  inboxCommand,
  dashboardCommand,
  doctorCommand,
  signCommand,
  verifyCommand,
  checkReceiverCommand,
  triggerCommand,
];
