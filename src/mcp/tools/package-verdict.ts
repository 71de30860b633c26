import * as z from 'zod';
import { ECOSYSTEMS } from '../../hooks/ecosystems/index.js';

const ids = ECOSYSTEMS.map((e) => e.id) as [
  (typeof ECOSYSTEMS)[number]['id'],
  ...(typeof ECOSYSTEMS)[number]['id'][],
];

/** The registries a package can be checked on, by OSV's spelling. */
export const ecosystem = z.enum(ids);

/** One package's verdict, as check_packages and check_command show it. */
export const packageVerdict = z.object({
  ecosystem,
  name: z.string(),
  version: z.string().nullable(),
  risky: z.boolean(),
  reasons: z.array(z.string()).describe('Why it is risky, one reason a line.'),
  unjudged: z
    .string()
    .nullable()
    .describe('Why it could not be fully checked (a registry that did not answer), or null.'),
});
