/** A bad setting: the message is one line naming the variable. Apart from config.ts so catching it loads no zod. */
export class ConfigError extends Error {}
