import { Injectable } from '@nestjs/common';
import { Store, StoreError, type Principal, type StoredWaiver } from '@app/store';
import type { WaiverDetailDto, WaiverDto, WaiverListDto } from './waiver.dto';
import { actorOf, toWaiverDto } from './waiver.mapper';
import { compareKeys, keysetSlice } from '../common/listing.util';
import type { CreateWaiverBody, ListWaiversQuery, RevokeWaiverQuery, UpdateWaiverBody } from './waivers.schemas';

/**
 * Waivers as `/v1/waivers` serves them, on libs/store WaiverService: owned, expiring exceptions to a
 * check, applied when findings are read. Scope: the principal sees and changes only waivers of its
 * accounts (a waiver of another account is absent); the store enforces the operator / creator rules (403).
 * Every state is judged now (`new Date()` per call).
 */
@Injectable()
export class WaiversService {
  constructor(private readonly store: Store) {}

  /**
   * Waivers of the principal's accounts with their state now, oldest first; revoked ones on request; a page of
   * `limit` after the cursor `after` (keyset on creation time and id).
   * @throws StoreError INVALID_ARGUMENT for a malformed cursor
   */
  async list(query: ListWaiversQuery, principal: Principal): Promise<WaiverListDto> {
    const all = await this.store.waiverService.listWithState(new Date(), {
      includeRevoked: query.includeRevoked === 'true' || query.state === 'revoked',
      scope: principal,
    });
    const listed = all.filter((w) => query.state === undefined || w.state === query.state);
    // Waivers are few (hundreds) and their states are judged per read: read in full, paged by (created at, id).
    const page = keysetSlice(listed, (w) => [w.createdAt, w.id], 2, compareKeys, query.limit, query.after);
    return { ...page, items: page.items.map(toWaiverDto) };
  }

  /**
   * Create a waiver for one of the principal's accounts (actor: `createdBy`, else the principal).
   * @throws StoreError FORBIDDEN outside the scope; INVALID_ARGUMENT for a bad expiry
   */
  async create(body: CreateWaiverBody, principal: Principal): Promise<WaiverDto> {
    const { createdBy, ...input } = body;
    const waiver = await this.store.waiverService.create(input, createdBy ?? actorOf(principal), new Date(), principal);
    return this.withState(waiver, principal);
  }

  /**
   * One waiver with its state and its append-only history.
   * @throws StoreError NOT_FOUND when no waiver of the principal's accounts has this id
   */
  async get(id: string, principal: Principal): Promise<WaiverDetailDto> {
    const found = await this.store.waiverService.getWithState(id, new Date(), principal);
    if (!found) throw new StoreError('NOT_FOUND', `waiver ${id} not found`);
    const history = await this.store.waiverService.history(id, principal);
    return { ...toWaiverDto(found), history: history.map((h) => ({ ...h, waiver: { ...h.waiver } })) };
  }

  /**
   * Change a waiver (actor: `updatedBy`, else the principal).
   * @throws StoreError NOT_FOUND, FORBIDDEN (not its creator and not admin), CONFLICT (revoked)
   */
  async update(id: string, body: UpdateWaiverBody, principal: Principal): Promise<WaiverDto> {
    const { updatedBy, ...changes } = body;
    return this.withState(await this.store.waiverService.update(id, changes, updatedBy ?? actorOf(principal), new Date(), principal), principal);
  }

  /**
   * Revoke a waiver (actor: `by`, else the principal): its findings count again at once.
   * @throws StoreError NOT_FOUND, FORBIDDEN, CONFLICT (already revoked)
   */
  async revoke(id: string, query: RevokeWaiverQuery, principal: Principal): Promise<WaiverDto> {
    return this.withState(await this.store.waiverService.revoke(id, query.by ?? actorOf(principal), new Date(), principal), principal);
  }

  private async withState(w: StoredWaiver, principal: Principal): Promise<WaiverDto> {
    const found = await this.store.waiverService.getWithState(w.id, new Date(), principal);
    return toWaiverDto(found ?? { ...w, state: 'active', matches: [] });
  }
}
