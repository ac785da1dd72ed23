"""The BERT encoder in torch, with the weight names of the safetensors files spider builds its ONNX models from.

The same computation as `model_build.write_bert_onnx` (exact erf GELU, additive float32.min mask, absolute
positions), so the weights trained here export by writing them back and building the ONNX graph from them;
`spider models tune` checks the two agree. Written out rather than taken from `transformers` so that the
`tune` extra needs torch alone.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import torch
from torch import nn


class _Embeddings(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        hidden = cfg["hidden_size"]
        self.word_embeddings = nn.Embedding(cfg["vocab_size"], hidden)
        self.position_embeddings = nn.Embedding(cfg["max_position_embeddings"], hidden)
        self.token_type_embeddings = nn.Embedding(cfg["type_vocab_size"], hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=cfg["layer_norm_eps"])
        self.dropout = nn.Dropout(cfg["hidden_dropout_prob"])

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = (self.word_embeddings(input_ids) + self.token_type_embeddings(torch.zeros_like(input_ids))
             + self.position_embeddings(positions))
        return self.dropout(self.LayerNorm(x))


class _SelfAttention(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        hidden = cfg["hidden_size"]
        self.heads = cfg["num_attention_heads"]
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.dropout = nn.Dropout(cfg["attention_probs_dropout_prob"])

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, length, hidden = x.shape

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(batch, length, self.heads, hidden // self.heads).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(hidden // self.heads) + mask
        context = self.dropout(scores.softmax(-1)) @ v
        return context.transpose(1, 2).reshape(batch, length, hidden)


class _Output(nn.Module):
    def __init__(self, cfg: dict, inner: int) -> None:
        super().__init__()
        self.dense = nn.Linear(inner, cfg["hidden_size"])
        self.LayerNorm = nn.LayerNorm(cfg["hidden_size"], eps=cfg["layer_norm_eps"])
        self.dropout = nn.Dropout(cfg["hidden_dropout_prob"])

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dropout(self.dense(x)) + residual)


class _Attention(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        self.self = _SelfAttention(cfg)
        self.output = _Output(cfg, cfg["hidden_size"])


class _Intermediate(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["intermediate_size"])


class _Layer(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        self.attention = _Attention(cfg)
        self.intermediate = _Intermediate(cfg)
        self.output = _Output(cfg, cfg["intermediate_size"])

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.attention.output(self.attention.self(x, mask), x)
        inner = nn.functional.gelu(self.intermediate.dense(x))  # exact (erf), as the ONNX graph
        return self.output(inner, x)


class _Encoder(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        self.layer = nn.ModuleList(_Layer(cfg) for _ in range(cfg["num_hidden_layers"]))


class Bert(nn.Module):
    """input_ids, attention_mask [batch, sequence] -> mean-pooled, L2-normalised sentence vectors [batch, hidden]."""

    def __init__(self, cfg: dict) -> None:
        super().__init__()
        if cfg.get("hidden_act") != "gelu" or cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only a plain BERT (gelu, absolute positions) can be tuned")
        self.config = cfg
        self.embeddings = _Embeddings(cfg)
        self.encoder = _Encoder(cfg)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        mask = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        x = self.embeddings(input_ids)
        for layer in self.encoder.layer:
            x = layer(x, mask)
        weights = attention_mask.unsqueeze(-1).float()
        pooled = (x * weights).sum(1) / weights.sum(1).clamp(min=1.0)
        return nn.functional.normalize(pooled, dim=-1)


def load_bert(directory: Path) -> Bert:
    """The BERT of directory's config.json and model.safetensors (float16 weights are widened to float32)."""
    from safetensors.numpy import load_file

    model = Bert(json.loads((directory / "config.json").read_text()))
    weights = {k.removeprefix("bert."): torch.from_numpy(np.asarray(v, dtype=np.float32))
               for k, v in load_file(str(directory / "model.safetensors")).items() if not k.endswith("position_ids")}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing:
        raise ValueError(f"{directory / 'model.safetensors'} lacks {len(missing)} weights (e.g. {missing[0]})")
    del unexpected  # pooler weights: sentence vectors do not use them
    return model


def save_weights(model: Bert, path: Path, dtype: type[np.floating]) -> None:
    """model's weights as safetensors of dtype (float32 to go on training, float16 to ship)."""
    from safetensors.numpy import save_file

    save_file({name: tensor.detach().cpu().numpy().astype(dtype) for name, tensor in model.state_dict().items()},
              str(path))
    path.chmod(0o644)  # safetensors writes through a private temporary file
