import type { Category, RentalModel, SearchParams } from "@service/sdk";
import type { FormEvent } from "react";
import { CATEGORIES } from "../../../lib/marketplace/vocabulary.ts";
import { RENTAL_MODEL_NAMES } from "../ui/formatting.ts";

const SORTS: { value: NonNullable<SearchParams["sort"]>; label: string }[] = [
  { value: "relevance", label: "Relevance" },
  { value: "rating", label: "Rating" },
  { value: "price_asc", label: "Price, lowest first" },
  { value: "price_desc", label: "Price, highest first" },
  { value: "newest", label: "Newest" },
];

/** Every filter and sort of GET /v1/listings; applied when the form is submitted. */
export function SearchFilters({ onSearch }: { onSearch: (params: SearchParams) => void }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim() || undefined;
    const number = (name: string) => (text(name) === undefined ? undefined : Number(text(name)));
    onSearch({
      q: text("q"),
      category: text("category") as Category | undefined,
      rental_model: text("rental_model") as RentalModel | undefined,
      min_price: number("min_price"),
      max_price: number("max_price"),
      min_rating: number("min_rating"),
      sort: text("sort") as SearchParams["sort"],
    });
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Search the catalogue">
      <label>
        Search
        <input name="q" type="search" maxLength={200} placeholder="e.g. solidity audit" />
      </label>
      <label>
        Category
        <select name="category" defaultValue="">
          <option value="">Any</option>
          {CATEGORIES.map((category) => (
            <option key={category} value={category}>
              {category}
            </option>
          ))}
        </select>
      </label>
      <label>
        Rental model
        <select name="rental_model" defaultValue="">
          <option value="">Any</option>
          {Object.entries(RENTAL_MODEL_NAMES).map(([value, name]) => (
            <option key={value} value={value}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Min price (ETH)
        <input name="min_price" type="number" min="0" step="any" inputMode="decimal" />
      </label>
      <label>
        Max price (ETH)
        <input name="max_price" type="number" min="0" step="any" inputMode="decimal" />
      </label>
      <label>
        Min rating
        <input name="min_rating" type="number" min="0" max="5" step="0.1" inputMode="decimal" />
      </label>
      <label>
        Sort by
        <select name="sort" defaultValue="relevance">
          {SORTS.map((sort) => (
            <option key={sort.value} value={sort.value}>
              {sort.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Search</button>
    </form>
  );
}
