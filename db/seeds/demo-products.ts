// Products: categories, products and their variations (sizes, colours, capacities).

import { row, text } from './bulk-load';
import type { Person } from './demo-people';
import { int, pick, sampleOrdered, type Rng } from './demo-random';

export interface Product {
  id: number;
  name: string;
  categoryId: number;
  imageUrl: string;
  exchangeAfterDays: number;
  weight: number; // how often it is handed out
  variations: Variation[];
}

export interface Variation {
  id: number;
  productId: number;
  name: string;
}

const CATEGORIES = ['Helmets', 'Jackets', 'Bags', 'Boxes', 'Phone holders', 'Power banks', 'T-shirts', 'Rain gear'];

type VariationKind = 'size' | 'size+colour' | 'colour' | 'capacity';

// [name, category id (1-based into CATEGORIES), how variations are named, hand-out weight]
const PRODUCTS: ReadonlyArray<readonly [string, number, VariationKind, number]> = [
  ['Standard Helmet', 1, 'size', 10],
  ['Full-face Helmet', 1, 'size+colour', 4],
  ['Summer Jacket', 2, 'size', 6],
  ['Winter Jacket', 2, 'size', 5],
  ['Reflective Vest', 2, 'size', 6],
  ['Thermal Bag 40L', 3, 'colour', 8],
  ['Delivery Backpack 28L', 3, 'colour', 6],
  ['Pizza Bag', 3, 'capacity', 3],
  ['Delivery Box 52L', 4, 'colour', 9],
  ['Top Box 45L', 4, 'capacity', 5],
  ['Handlebar Phone Mount', 5, 'colour', 7],
  ['Phone Holder Pro', 5, 'colour', 4],
  ['Power Bank 10000mAh', 6, 'colour', 6],
  ['Power Bank 20000mAh', 6, 'colour', 4],
  ['Polo T-shirt', 7, 'size+colour', 9],
  ['Crew T-shirt', 7, 'size', 8],
  ['Long-sleeve T-shirt', 7, 'size', 4],
  ['Rain Poncho', 8, 'size', 3],
  ['Rain Trousers', 8, 'size', 2],
  ['Waterproof Gloves', 8, 'size', 3],
];

const SIZES = ['S', 'M', 'L', 'XL', 'XXL'];
const COLOURS = ['Black', 'Red', 'Blue', 'Grey', 'Orange', 'Yellow', 'Green'];
const CAPACITIES = ['Small', 'Medium', 'Large', 'Extra large'];

function variationNames(rng: Rng, kind: VariationKind): string[] {
  const k = int(rng, 2, 5);
  switch (kind) {
    case 'size': {
      const first = int(rng, 0, SIZES.length - k); // a run of neighbouring sizes
      return SIZES.slice(first, first + k);
    }
    case 'size+colour': {
      const colour = pick(rng, COLOURS);
      return sampleOrdered(rng, SIZES, k).map((s) => `${s} / ${colour}`);
    }
    case 'colour':
      return sampleOrdered(rng, COLOURS, k);
    case 'capacity':
      return sampleOrdered(rng, CAPACITIES, Math.min(k, CAPACITIES.length));
  }
}

export function buildCategories(): Person[] {
  return CATEGORIES.map((name, i) => ({ id: i + 1, name }));
}

/** The products, their variations numbered from 1 across all products, drawn from `rng`. */
export function buildProducts(rng: Rng): Product[] {
  let variationId = 0;
  return PRODUCTS.map(([name, categoryId, kind, weight], i) => {
    const id = i + 1;
    const variations = variationNames(rng, kind).map((v) => ({ id: ++variationId, productId: id, name: v }));
    return {
      id,
      name,
      categoryId,
      imageUrl: `https://cdn.example.com/gear/${id}.jpg`,
      exchangeAfterDays: int(rng, 90, 365),
      weight,
      variations,
    };
  });
}

export function productsByCategory(products: readonly Product[]): Map<number, Product[]> {
  const byCategory = new Map<number, Product[]>();
  for (const p of products) byCategory.set(p.categoryId, [...(byCategory.get(p.categoryId) ?? []), p]);
  return byCategory;
}

export function* productRows(products: readonly Product[]) {
  for (const p of products) yield row([p.id, text(p.name), p.categoryId, text(p.imageUrl), p.exchangeAfterDays]);
}

export function* variationRows(products: readonly Product[]) {
  for (const p of products) for (const v of p.variations) yield row([v.id, v.productId, text(v.name)]);
}
