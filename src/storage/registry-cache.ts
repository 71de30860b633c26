/** Registry answers shared by instances that have no Redis; expired entries read as null. */
export interface RegistryCacheRepository {
  cacheGet(key: string, now: Date): Promise<string | null>;
  cachePut(key: string, value: string, expiresAt: Date): Promise<void>;
}
