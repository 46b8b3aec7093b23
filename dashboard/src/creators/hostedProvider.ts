/** The model vendors whose agents run on the creator's own API key. */
const HOSTED_PROVIDERS = { openai: "OpenAI", anthropic: "Anthropic" } as const;

/** The hosted vendor's name when the model field's JSON names one (`{"provider": "openai", …}`). */
export function hostedProviderOf(modelJson: string): string | undefined {
  try {
    const provider = (JSON.parse(modelJson) as { provider?: unknown } | null)?.provider;
    return typeof provider === "string" && Object.hasOwn(HOSTED_PROVIDERS, provider)
      ? HOSTED_PROVIDERS[provider as keyof typeof HOSTED_PROVIDERS]
      : undefined;
  } catch {
    return undefined;
  }
}
