/** `category_posts` → `CategoryPosts`: Prisma model names and generated type names. */
export function pascalCase(name: string): string {
  return name
    .split(/[_-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

/** `category_posts` → `categoryPosts`: generated value names. */
export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}
