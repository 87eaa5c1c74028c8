/** Whether an item has every field the filter sets (`undefined` ones match anything). */
export const matches = <T extends object>(item: T, filter: object): boolean =>
  Object.entries(filter).every(([key, value]) => value === undefined || item[key as keyof T] === value);
