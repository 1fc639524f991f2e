import { type FieldNode, type GraphQLResolveInfo, Kind, type SelectionSetNode } from "graphql";

/**
 * The fields a query selects on the items of the connection being resolved (`nodes { … }` and
 * `edges { node { … } }`), by field name (aliases and fragments followed), each with its nodes:
 * lets a list's resolver read up front what its items' fields will ask for. `@skip`/`@include`
 * are not evaluated, so a field may be listed that will not run.
 */
export function connectionItemFields(info: GraphQLResolveInfo): Map<string, FieldNode[]> {
  const items: FieldNode[] = [];
  for (const field of info.fieldNodes) {
    for (const child of fieldsOf(field.selectionSet, info)) {
      if (child.name.value === "nodes") items.push(child);
      else if (child.name.value === "edges") {
        items.push(...fieldsOf(child.selectionSet, info).filter((f) => f.name.value === "node"));
      }
    }
  }
  const selected = new Map<string, FieldNode[]>();
  for (const item of items) {
    for (const field of fieldsOf(item.selectionSet, info)) {
      const name = field.name.value;
      const nodes = selected.get(name);
      if (nodes) nodes.push(field);
      else selected.set(name, [field]);
    }
  }
  return selected;
}

function fieldsOf(
  set: SelectionSetNode | undefined,
  info: GraphQLResolveInfo,
  seen = new Set<string>(),
): FieldNode[] {
  if (!set) return [];
  const fields: FieldNode[] = [];
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) {
      fields.push(...fieldsOf(selection.selectionSet, info, seen));
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      fields.push(...fieldsOf(info.fragments[selection.name.value]?.selectionSet, info, seen));
    }
  }
  return fields;
}
