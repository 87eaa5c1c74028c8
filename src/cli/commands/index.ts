import { backfillCommand } from './backfill.js';
import type { Command } from './command.js';
import { demoCommand } from './demo.js';
import { emulateCommand } from './emulate.js';
import { sendCommand } from './send.js';
import { signCommand } from './sign.js';
import { verifyCommand } from './verify.js';

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  demoCommand,
  emulateCommand,
  sendCommand,
  backfillCommand,
  signCommand,
  verifyCommand,
];
