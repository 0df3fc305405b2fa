/** Vitest global setup (filled in by the store: creates and migrates the test database). */
export default async function setup(): Promise<void> {}
