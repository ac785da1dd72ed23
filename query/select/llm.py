"""LLM selectors: one port (`complete(system, user)`) with two backends, the Anthropic Messages API through the
`anthropic` SDK and any OpenAI-compatible chat endpoint (vLLM, Ollama, llama.cpp) over HTTP.

The selector around them is shared: build the prompt, serve identical prompts from a disk cache, parse the JSON
answer, drop ids that were not offered, and turn every failure into a Decision that admits nothing.

Endpoints, keys, timeouts and the cache come from the door's settings (`query.pipeline.open_selector`); a backend or
selector made without them (a test, a bench script) takes the environment's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

import httpx
from spider.core.cache_files import write_atomically
from spider.core.errors import ConfigurationError, LLMFailure, MalformedAnswer
from spider.core.settings import LLMSettings, Settings, settings_or_env
from spider.query.results import Decision
from spider.query.select.decide import SelectionRequest
from spider.query.select.prompt import issue_excerpt, parse_selection, system_prompt, user_prompt

TEMPERATURE = 0.0
MAX_TOKENS = 1024
RETRIES = 3  # after the first attempt, for 429, 5xx and dropped connections, within SPIDER_LLM_TIMEOUT
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"
DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"  # the SDK's own, given so that it reads no environment
# Every call sends the issue: a 1 MB issue cost ~790k input tokens per query. It is cut to SPIDER_LLM_ISSUE_TOKENS
# (settings.ISSUE_TOKENS by default), estimated at CHARS_PER_TOKEN characters each (English prose and code run
# 3.5-4.5), and the answer says so.
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Completion:
    text: str
    tokens_in: int
    tokens_out: int


class Backend(Protocol):
    provider: str
    model: str

    def complete(self, system: str, user: str) -> Completion: ...


class _Retryable(Exception):
    """An attempt that failed in a way a later one may not (429, 5xx, a dropped connection)."""

    def __init__(self, status: str, detail: str, retry_after: str | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.retry_after = retry_after


def _within_deadline(limit: float, attempt: Callable[[float], Completion]) -> Completion:
    """`attempt(seconds_left)` until it answers, retried up to RETRIES times with back-off, all within `limit`
    seconds: the limit bounds the whole call, back-off included, and each attempt gets what is left of it. An
    attempt raises TimeoutError when its time ran out, _Retryable when another attempt may succeed."""
    deadline = time.monotonic() + limit
    for tries in range(RETRIES + 1):
        try:
            return attempt(deadline - time.monotonic())
        except TimeoutError:
            raise LLMFailure("timeout", f"no answer within {limit:g}s") from None
        except _Retryable as failure:
            if tries == RETRIES:
                raise LLMFailure(failure.status, f"{failure} after {RETRIES} retries") from None
            pause = _backoff(tries, failure.retry_after)
            if time.monotonic() + pause >= deadline:
                raise LLMFailure("timeout", f"no answer within {limit:g}s (last attempt: {failure})") from None
            time.sleep(pause)
    raise AssertionError("unreachable")


class AnthropicBackend:
    """The Messages API through the SDK (ANTHROPIC_BASE_URL redirects it); retries are ours, within the timeout.
    The key and the endpoint are the settings' (`llm`), handed to the SDK so that it reads no environment itself."""

    provider = "anthropic"

    def __init__(self, model: str | None = None, llm: LLMSettings | None = None) -> None:
        llm = llm or settings_or_env(None).llm
        if not llm.anthropic_api_key:
            raise ConfigurationError("the anthropic selector needs ANTHROPIC_API_KEY (or use --selector learned)")
        self.model = model or llm.anthropic_model or DEFAULT_ANTHROPIC_MODEL
        self.timeout = llm.timeout
        import anthropic  # here, not at the top: ~0.3-0.9 s that a spider-query on the learned selector need not pay

        self.client = anthropic.Anthropic(api_key=llm.anthropic_api_key,
                                          base_url=llm.anthropic_base_url or DEFAULT_ANTHROPIC_BASE_URL,
                                          timeout=self.timeout, max_retries=0)

    def complete(self, system: str, user: str) -> Completion:
        return _within_deadline(self.timeout, lambda seconds_left: self._attempt(system, user, seconds_left))

    def _attempt(self, system: str, user: str, seconds_left: float) -> Completion:
        import anthropic  # loaded by __init__: this only names it

        try:
            message = self.client.messages.create(
                model=self.model, max_tokens=MAX_TOKENS, temperature=TEMPERATURE, system=system,
                messages=[{"role": "user", "content": user}], timeout=seconds_left,
            )
        except anthropic.APITimeoutError:
            raise TimeoutError from None
        except anthropic.APIStatusError as exc:
            detail = f"HTTP {exc.status_code}: {_first_line(exc)}"
            if exc.status_code == 429 or exc.status_code >= 500:
                status = "rate limited" if exc.status_code == 429 else "API error"
                raise _Retryable(status, detail, exc.response.headers.get("retry-after")) from None
            raise LLMFailure("API error", detail) from None
        except anthropic.APIConnectionError as exc:
            raise _Retryable("API error", f"connection failed: {_first_line(exc)}") from None
        except (ValueError, RecursionError):  # the SDK decodes the reply's JSON itself
            raise LLMFailure("API error", "the endpoint's reply is not JSON") from None
        try:  # the SDK builds `message` from the reply without checking it
            text = "".join(block.text  # type: ignore[union-attr]  # text blocks only
                           for block in message.content if getattr(block, "type", "") == "text")
        except (AttributeError, TypeError):
            raise LLMFailure("API error", "the endpoint's reply is not a Messages API message") from None
        usage = getattr(message, "usage", None)
        return Completion(text, _count(getattr(usage, "input_tokens", 0)), _count(getattr(usage, "output_tokens", 0)))


class OpenAIBackend:
    """POST {base}/chat/completions, retried with back-off on 429, 5xx and dropped connections, within the timeout."""

    provider = "openai"

    def __init__(self, model: str | None = None, llm: LLMSettings | None = None) -> None:
        llm = llm or settings_or_env(None).llm
        if not llm.openai_base_url:
            raise ConfigurationError("the openai selector needs SPIDER_OPENAI_BASE_URL (e.g. http://localhost:8000/v1)")
        self.model = model or llm.openai_model or ""
        if not self.model:
            raise ConfigurationError("the openai selector needs a model: --model NAME or SPIDER_OPENAI_MODEL")
        headers = {"Authorization": f"Bearer {llm.openai_api_key}"} if llm.openai_api_key else {}
        self.timeout = llm.timeout
        self.client = httpx.Client(base_url=llm.openai_base_url.rstrip("/") + "/", headers=headers,
                                   timeout=self.timeout)

    def complete(self, system: str, user: str) -> Completion:
        body = {"model": self.model, "temperature": TEMPERATURE, "max_tokens": MAX_TOKENS,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        return _within_deadline(self.timeout, lambda seconds_left: self._attempt(body, seconds_left))

    def _attempt(self, body: dict, seconds_left: float) -> Completion:
        try:
            response = self.client.post("chat/completions", json=body, timeout=seconds_left)
        except httpx.TimeoutException:
            raise TimeoutError from None
        except httpx.TransportError as exc:
            raise _Retryable("API error", f"connection failed: {_first_line(exc)}") from None
        if response.status_code == 429 or response.status_code >= 500:
            status = "rate limited" if response.status_code == 429 else "API error"
            raise _Retryable(status, f"HTTP {response.status_code}", response.headers.get("retry-after"))
        if response.status_code != 200:
            raise LLMFailure("API error", f"HTTP {response.status_code}: {response.text[:120]}")
        try:
            payload = response.json()
            text = payload["choices"][0]["message"]["content"] or ""
        except (ValueError, RecursionError, KeyError, IndexError, TypeError):
            raise LLMFailure("API error", "the endpoint's reply is not a chat completion") from None
        if not isinstance(text, str):
            raise LLMFailure("API error", "the endpoint's reply is not a chat completion (content is no text)")
        usage = payload.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return Completion(text, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))


def _backoff(attempt: int, retry_after: str | None) -> float:
    try:
        return min(float(retry_after), 30.0) if retry_after is not None else min(0.5 * 2**attempt, 8.0)
    except ValueError:
        return min(0.5 * 2**attempt, 8.0)


def _count(tokens: object) -> int:
    """A token count as the endpoint reported it, or 0 when it is not one (the answer is still used)."""
    return tokens if type(tokens) is int and tokens >= 0 else 0


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__


class AnswerCache:
    """Answers keyed by a hash of (provider, model, sampling settings, prompts), one JSON file each, in `directory`:
    `AnswerCache.of(settings)` is the settings' (SPIDER_LLM_CACHE, else HOME/llm-cache); given none, the
    environment's."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or self._directory(settings_or_env(None))

    @classmethod
    def of(cls, settings: Settings) -> AnswerCache:
        return cls(cls._directory(settings))

    @staticmethod
    def _directory(settings: Settings) -> Path:
        return settings.llm.cache_dir(settings.home)

    @staticmethod
    def key(backend: Backend, system: str, user: str) -> str:
        material = json.dumps([backend.provider, backend.model, TEMPERATURE, MAX_TOKENS, system, user])
        return hashlib.sha256(material.encode()).hexdigest()

    def get(self, key: str) -> Completion | None:
        """The stored answer; None when there is none or the file holds no answer (the call is made again)."""
        path = self.directory / f"{key}.json"
        try:
            stored = Completion(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError, RecursionError):
            return None
        if not isinstance(stored.text, str):
            return None
        return Completion(stored.text, _count(stored.tokens_in), _count(stored.tokens_out))

    def put(self, key: str, completion: Completion) -> None:
        write_atomically(self.directory / f"{key}.json", json.dumps(completion.__dict__).encode())


class LLMSelector:
    uses_budget = True
    needs_lexical = False

    def __init__(self, backend: Backend, cache: AnswerCache | None = None, llm: LLMSettings | None = None) -> None:
        self.backend = backend
        self.cache = cache or AnswerCache()
        self.name = f"{backend.provider} ({backend.model})"
        self.issue_chars = (llm or settings_or_env(None).llm).issue_tokens * CHARS_PER_TOKEN

    def decide(self, request: SelectionRequest) -> Decision:
        offered = [c.id for c in request.candidates]
        decision = Decision(request.seed.id, offered)
        issue, decision.issue_cut = issue_excerpt(request.issue, self.issue_chars)
        system, user = system_prompt(request), user_prompt(dataclasses.replace(request, issue=issue))
        key = self.cache.key(self.backend, system, user)
        completion = self.cache.get(key)
        decision.cached = completion is not None
        if completion is None:
            try:
                completion = self.backend.complete(system, user)
            except LLMFailure as failure:
                decision.status, decision.detail = failure.status, str(failure)
                return decision
        decision.tokens_in, decision.tokens_out = completion.tokens_in, completion.tokens_out
        try:
            selected = parse_selection(completion.text)
        except MalformedAnswer as exc:
            decision.status, decision.detail = "malformed answer", str(exc)
            return decision
        if not decision.cached:
            self.cache.put(key, completion)
        allowed = set(offered)
        decision.admitted = [i for i in dict.fromkeys(selected) if i in allowed]
        decision.ignored = [i for i in dict.fromkeys(selected) if i not in allowed]
        return decision
