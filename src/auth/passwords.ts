import { hash, verify } from '@node-rs/argon2';

/** Algorithm.Argon2id: the package's enum is a const enum, which verbatimModuleSyntax cannot read. */
const ARGON2ID = 2;

/**
 * Passwords, hashed with argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane): about 12-35 ms a
 * hash on these machines (docs/ARCHITECTURE.md), slow enough to make guessing costly and fast enough
 * for a sign-in. The PHC string carries its parameters, so raising them later keeps old hashes valid.
 */
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** Whether `password` matches `phc`; false (never a throw) for a malformed hash. */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;

/**
 * A hash of a random password with the same parameters, verified when the email has no account (or
 * no password), so a failed sign-in takes about as long either way and timing does not tell whether
 * the email exists.
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hash(crypto.randomUUID(), OPTIONS);
  return dummy;
}
