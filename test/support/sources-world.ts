/** What the payment sources' unit files share: the world's type and the wallet's claim key. */
import { ownerKey, type world } from './deposit-world.ts';

export type World = ReturnType<typeof world>;

export const claimKey = `${ownerKey}#wallet-aed`;
