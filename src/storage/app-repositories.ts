/**
 * The repositories the GitHub application is installed on, by full name (`owner/name`, compared
 * case-insensitively as the platform does), each with its installation. Kept from the `installation`
 * and `installation_repositories` webhook events; an event for any other repository is ignored.
 */
export interface AppRepositoryStore {
  /** Adds (or moves to this installation) each repository. */
  addRepositories(installationId: number, repositories: readonly string[], at: Date): Promise<void>;
  removeRepositories(installationId: number, repositories: readonly string[]): Promise<void>;
  /** The application was uninstalled: every repository of the installation is forgotten. */
  removeInstallation(installationId: number): Promise<void>;
  /** The installation a repository is installed through, or null when it is not installed. */
  installationOf(repository: string): Promise<number | null>;
}
