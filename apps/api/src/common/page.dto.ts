/**
 * The keyset pages of REST list answers (`limit` + `after`, `nextCursor`), declared once: a page
 * class extends the base this file builds for its items, so the OpenAPI schema keeps the subclass's name
 * (`export class TokenListDto extends KeysetPageDto<TokenDto>({ ... }) {}`) and the fields' order and wording.
 */
import type { Type } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import type { ListPage } from './listing.util';

/** What differs between the pages: the items and how `total`, `limit` and `nextCursor` are documented. */
export interface KeysetPageSpec {
  /** The class of one item (an OpenAPI schema). */
  items: Type<unknown>;
  /** What `items` holds beyond its type (scope narrowing of ids in it), if anything. */
  itemsDescription?: string;
  /** `total`: what it counts (over all pages), and an example. */
  total: { description: string; example?: number };
  /** An example `limit`. */
  limitExample?: number;
  /** An example `nextCursor`. */
  cursorExample?: string;
}

/** A class whose instances are `T` (the base of a page class; never instantiated: responses are plain objects). */
export type PageClass<T> = abstract new () => T;

/**
 * The base class of a page `{items, total, limit, nextCursor}` of a list without a scan (scans, tokens, waivers).
 * @returns a class to extend (its own name is not an OpenAPI schema)
 */
export function KeysetPageDto<T>(spec: KeysetPageSpec): PageClass<ListPage<T>> {
  abstract class KeysetPage {
    @ApiProperty({ type: [spec.items], ...(spec.itemsDescription !== undefined ? { description: spec.itemsDescription } : {}) } as ApiPropertyOptions)
    items: T[];

    @ApiProperty({ ...(spec.total.example !== undefined ? { example: spec.total.example } : {}), description: spec.total.description })
    total: number;

    @ApiProperty(spec.limitExample !== undefined ? { example: spec.limitExample } : {})
    limit: number;

    @ApiProperty({ type: String, nullable: true, ...(spec.cursorExample !== undefined ? { example: spec.cursorExample } : {}), description: 'Pass as `after` for the next page; null on the last page' })
    nextCursor: string | null;
  }
  return KeysetPage;
}

/**
 * The base class of a page of a listing of one scan (`?scanId=`, default the latest succeeded): the keyset page plus
 * the `scanId` read (fleet graph listings, quota samples).
 * @returns a class to extend (its own name is not an OpenAPI schema)
 */
export function ScanListingPageDto<T>(spec: KeysetPageSpec): PageClass<ListPage<T> & { scanId: string | null }> {
  abstract class ScanListingPage extends KeysetPageDto<T>(spec) {
    @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'Scan read; null when no scan succeeded yet' })
    scanId: string | null;
  }
  return ScanListingPage;
}
