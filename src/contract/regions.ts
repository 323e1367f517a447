/*! Contract: the names of the regions of source code that grep's `in` option keeps (engine/regions gives each
 * unit of a text one of them, in this order of codes). Data only. */

/** The region names, in the order of their codes (0 code, 1 comment, 2 string). */
export const REGION_NAMES = ["code", "comment", "string"] as const;

/** A region's name. */
export type RegionName = (typeof REGION_NAMES)[number];
