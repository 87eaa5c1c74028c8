import type { Command } from './command.js';
import { signCommand } from './sign.js';
import { verifyCommand } from './verify.js';

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [signCommand, verifyCommand];
