"""Model backends: vLLM offline, OpenAI-compatible APIs, transformers; all imported lazily."""
