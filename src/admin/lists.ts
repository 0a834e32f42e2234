import * as assignments from '../queries/assignments';
import * as patrolChecks from '../queries/patrol-checks';
import * as productExchanges from '../queries/product-exchanges';
import * as productReturns from '../queries/product-returns';
import * as riderEquipment from '../queries/rider-equipment';
import { defineList, type ListColumn } from './list-definition';
import type { Row } from './stream-csv';
import { links } from '../html/links';

// The five admin lists. Filters (with how the form offers each), joins and sortable columns come from
// src/queries (the same definitions as /v2); what is here is only how each column is labelled and shown.

const riderHref = (row: Row) => links.rider(String(row.rider_id));
const riderId: ListColumn<'rider_id'> = { key: 'rider_id', label: 'Rider ID', sort: 'rider_id', numeric: true, href: riderHref };
const riderName: ListColumn<never> = { key: 'rider_name', label: 'Rider', auto: true, href: riderHref };
const company: ListColumn<'3pl'> = { key: 'company', label: '3PL', sort: '3pl', auto: true };
/** One validation's own column: in the CSV only, for spreadsheets; the table says it in Result ("Failed: plate"). */
const passFail = (key: string, label: string): ListColumn<never> => ({
  key,
  label,
  only: 'csv',
  text: (row) => (row[key] ? 'Passed' : 'Failed'),
  csvSql: `CASE WHEN t.${key} IS TRUE THEN 'Passed' ELSE 'Failed' END`,
  badge: (row) => (row[key] ? 'pass' : 'fail'),
});
/** A check's result: Passed, or Failed with the validations that failed ("Failed: ID, plate"). */
const VALIDATIONS: ReadonlyArray<[key: string, label: string]> = [
  ['id_valid', 'ID'],
  ['plate_valid', 'plate'],
  ['sticker_valid', 'sticker'],
];
const failedOf = (row: Row) => VALIDATIONS.filter(([key]) => !row[key]).map(([, label]) => label);
const result: ListColumn<never> = {
  key: 'result',
  label: 'Result',
  text: (row) => (failedOf(row).length ? `Failed: ${failedOf(row).join(', ')}` : 'Passed'),
  csvSql: `CASE WHEN ${VALIDATIONS.map(([key]) => `t.${key} IS TRUE`).join(' AND ')} THEN 'Passed' ELSE 'Failed: ' || concat_ws(', ', ${VALIDATIONS.map(([key, label]) => `CASE WHEN t.${key} IS NOT TRUE THEN '${label}' END`).join(', ')}) END`,
  badge: (row) => (failedOf(row).length ? 'fail' : 'pass'),
};
/** An item's column: "Helmet / L", from the product's and the variation's names. */
function itemColumn(prefix: string, label: string): ListColumn<never>;
function itemColumn(prefix: string, label: string, sort: 'product'): ListColumn<'product'>;
function itemColumn(prefix: string, label: string, sort?: 'product'): ListColumn<'product'> {
  return {
    key: `${prefix}product_name`,
    label,
    sort,
    text: (row: Row) => `${row[`${prefix}product_name`]} / ${row[`${prefix}variation_name`]}`,
    csvSql: `t.${prefix}product_name || ' / ' || t.${prefix}variation_name`,
  };
}

export const checks = defineList({
  path: '/checks',
  title: 'Patrol checks',
  intro: 'Checks of riders on the road, newest first. Open a check for its answers, items and notes.',
  section: 'checks',
  noun: ['patrol check', 'patrol checks'],
  ...patrolChecks.adminList,
  defaultSort: { sort: 'checked_at', dir: 'desc' },
  csvName: 'patrol-checks',
  table: [
    { key: 'id', label: 'Check', sort: 'id', firstDir: 'desc', numeric: true, href: (row) => links.check(String(row.id)) },
    { key: 'checked_at', label: 'Checked at', sort: 'checked_at', firstDir: 'desc', nowrap: true },
    riderId,
    riderName,
    company,
    { key: 'patroller_id', label: 'Patroller ID', sort: 'tpatroller_id', numeric: true },
    { key: 'patroller_name', label: 'Patroller', auto: true },
    result,
    passFail('id_valid', 'ID'),
    passFail('plate_valid', 'Plate'),
    passFail('sticker_valid', 'Sticker'),
    { key: 'score', label: 'Score', numeric: true },
    { key: 'items', label: 'Items', numeric: true },
  ],
});

export const assignmentList = defineList({
  path: '/equipment/assignments',
  title: 'Assignments',
  intro: 'Every item handed to a rider, held now or returned since.',
  section: 'equipment',
  noun: ['assignment', 'assignments'],
  ...assignments.adminList,
  defaultSort: { sort: 'assigned_at', dir: 'desc' },
  csvName: 'assignments',
  table: [
    { key: 'assigned_at', label: 'Assigned at', sort: 'assigned_at', firstDir: 'desc', nowrap: true },
    riderId,
    riderName,
    company,
    itemColumn('', 'Item', 'product'),
    { key: 'product_id', label: 'Product ID', only: 'csv' },
    { key: 'variation_id', label: 'Variation ID', only: 'csv' },
    { key: 'assign_method', label: 'Assign type' },
    {
      key: 'assign_type',
      label: 'Record',
      text: (row) => (row.assign_type === 'exchange' ? 'From an exchange' : 'Assigned'),
      csvSql: `CASE WHEN t.assign_type = 'exchange' THEN 'From an exchange' ELSE 'Assigned' END`,
    },
    { key: 'assigned_by', label: 'Assigned by', auto: true },
    {
      key: 'returned_at',
      label: 'Returned at',
      sort: 'returned_at',
      firstDir: 'desc',
      nowrap: true,
      text: (row) => (row.returned_at ? String(row.returned_at) : 'Held now'),
      csvSql: `coalesce(nullif(t.returned_at::text, ''), 'Held now')`,
      badge: (row) => (row.returned_at ? undefined : 'muted'),
    },
  ],
});

type Equipment = Array<{ product: string; variation: string; assigned_at: string; returned_at: string | null }>;
const equipmentOf = (row: Row): Equipment => (Array.isArray(row.equipment) ? row.equipment : []);

export const riderList = defineList({
  path: '/equipment/riders',
  printable: true,
  title: 'Riders with equipment',
  intro: 'Each rider with the items they hold now, and how many they have returned (linked to those returns), by rider ID.',
  section: 'equipment',
  noun: ['rider', 'riders'],
  ...riderEquipment.adminList,
  defaultSort: { sort: 'rider_id', dir: 'asc' },
  csvName: 'riders-with-equipment',
  table: [
    riderId,
    { ...riderName, sort: 'rider_name' },
    company,
    { key: 'country', label: 'Country' },
    { key: 'held', label: 'Held', numeric: true, text: (row) => String(equipmentOf(row).filter((e) => !e.returned_at).length) },
    {
      key: 'returned',
      label: 'Returned',
      numeric: true,
      text: (row) => String(equipmentOf(row).filter((e) => e.returned_at).length),
      // The returned items are a count on the page, linked to the rider's returns (a row stays one screen tall).
      href: (row) => (equipmentOf(row).some((e) => e.returned_at) ? links.returns({ rider_id: String(row.rider_id) }) : undefined),
    },
    {
      key: 'equipment',
      label: 'Items held now',
      only: 'table',
      items: (row) =>
        equipmentOf(row)
          .filter((e) => !e.returned_at)
          .map((e) => ({ text: `${e.product} / ${e.variation}`, note: `held since ${e.assigned_at.slice(0, 10)}` })),
    },
    {
      key: 'equipment',
      label: 'Items',
      only: 'csv',
      // The CSV keeps every item: held ones first, then returned ones, each in assign order.
      items: (row) =>
        [...equipmentOf(row).filter((e) => !e.returned_at), ...equipmentOf(row).filter((e) => e.returned_at)].map((e) => ({
          text: `${e.product} / ${e.variation}`,
          note: e.returned_at ? `returned ${e.returned_at.slice(0, 10)}` : `held since ${e.assigned_at.slice(0, 10)}`,
          muted: Boolean(e.returned_at),
        })),
    },
  ],
});

export const returnList = defineList({
  path: '/equipment/returns',
  title: 'Returns',
  intro: 'Items riders gave back, with their condition and who took them in.',
  section: 'equipment',
  noun: ['return', 'returns'],
  ...productReturns.adminList,
  defaultSort: { sort: 'returned_at', dir: 'desc' },
  csvName: 'returns',
  table: [
    { key: 'returned_at', label: 'Returned at', sort: 'returned_at', firstDir: 'desc', nowrap: true },
    riderId,
    riderName,
    company,
    itemColumn('', 'Item', 'product'),
    { key: 'product_id', label: 'Product ID', only: 'csv' },
    { key: 'variation_id', label: 'Variation ID', only: 'csv' },
    { key: 'assigned_at', label: 'Assigned at', nowrap: true },
    { key: 'condition', label: 'Condition', sort: 'return_condition' },
    { key: 'returned_by', label: 'Taken in by', auto: true },
  ],
});

export const exchangeList = defineList({
  path: '/equipment/exchanges',
  title: 'Exchanges',
  intro: 'Items swapped for others: what went back, what came out, and why.',
  section: 'equipment',
  noun: ['exchange', 'exchanges'],
  ...productExchanges.adminList,
  defaultSort: { sort: 'exchanged_at', dir: 'desc' },
  csvName: 'exchanges',
  table: [
    { key: 'exchanged_at', label: 'Exchanged at', sort: 'exchanged_at', firstDir: 'desc', nowrap: true },
    riderId,
    riderName,
    company,
    itemColumn('old_', 'Gave back'),
    { key: 'old_product_id', label: 'Old product ID', only: 'csv' },
    { key: 'old_variation_id', label: 'Old variation ID', only: 'csv' },
    itemColumn('new_', 'Received'),
    { key: 'new_product_id', label: 'New product ID', only: 'csv' },
    { key: 'new_variation_id', label: 'New variation ID', only: 'csv' },
    { key: 'exchange_type', label: 'Exchange type', sort: 'exchange_type', auto: true },
    { key: 'replacement_type', label: 'Replacement', sort: 'replacement_type' },
    { key: 'processed_by', label: 'Processed by', auto: true },
  ],
});

export const equipmentTabs = [assignmentList, riderList, returnList, exchangeList];
export const allLists = [checks, ...equipmentTabs];
