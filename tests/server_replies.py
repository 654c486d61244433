"""What real servers answer when they are set up wrongly: status and body, verbatim.

Kept as fixtures for the tests of `agent/server_errors.py` and the Repairs it raises.
Each entry: (status, body, the Repair's translation key, figures it names).
"""

from typing import Any

from tests.fake_llm import Reply

SetupReply = tuple[int, Any, str, dict[str, str]]

MODEL = "qwen3:8b"

SETUP_ERRORS: dict[str, SetupReply] = {
    # vLLM without --enable-auto-tool-choice --tool-call-parser.
    "vllm no tool parser": (
        400,
        {
            "object": "error",
            "message": '"auto" tool choice requires --enable-auto-tool-choice and'
            " --tool-call-parser to be set",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
        "vllm_tool_parser",
        {},
    ),
    # llama-server without --jinja.
    "llama.cpp no jinja": (
        500,
        {
            "error": {
                "code": 500,
                "message": "tools param requires --jinja flag",
                "type": "server_error",
            }
        },
        "llamacpp_jinja",
        {},
    ),
    # An Ollama model whose template has no tools.
    "ollama model without tools": (
        400,
        {
            "error": {
                "message": "registry.ollama.ai/library/gemma2:2b does not support tools",
                "type": "api_error",
                "param": None,
                "code": None,
            }
        },
        "model_without_tools",
        {},
    ),
    # OpenRouter: no provider of the model takes tools.
    "openrouter no tool endpoint": (
        404,
        {
            "error": {
                "message": "No endpoints found that support tool use. To learn more"
                " about provider routing, visit:"
                " https://openrouter.ai/docs/provider-routing",
                "code": 404,
            }
        },
        "model_without_tools",
        {},
    ),
    # llama-server: the prompt does not fit its -c.
    "llama.cpp context": (
        400,
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try"
                " increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 5210,
                "n_ctx": 4096,
            }
        },
        "context_size",
        {"needed": "5210", "context": "4096", "suggested": "7168"},
    ),
    # vLLM: longer than --max-model-len.
    "vllm context": (
        400,
        {
            "object": "error",
            "message": "This model's maximum context length is 4096 tokens. However,"
            " you requested 5210 tokens (4186 in the messages, 1024 in the"
            " completion). Please reduce the length of the messages or completion.",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
        "context_size",
        {"needed": "5210", "context": "4096", "suggested": "7168"},
    ),
    # LM Studio: the model was loaded with a small context.
    "lm studio context": (
        400,
        {
            "error": "Trying to keep the first 5210 tokens when context the overflows."
            " However, the model is loaded with context length of only 4096 tokens,"
            " which is not enough. Try to load the model with a larger context"
            " length, or provide a shorter input"
        },
        "context_size",
        {"needed": "5210", "context": "4096", "suggested": "7168"},
    ),
    # OpenAI and OpenRouter.
    "openai context": (
        400,
        {
            "error": {
                "message": "This model's maximum context length is 8192 tokens."
                " However, your messages resulted in 9000 tokens. Please reduce the"
                " length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
        "context_size",
        {"needed": "9000", "context": "8192", "suggested": "10240"},
    ),
    # Ollama: the model was never pulled.
    "ollama not pulled": (
        404,
        {
            "error": {
                "message": f'model "{MODEL}" not found, try pulling it first',
                "type": "api_error",
                "param": None,
                "code": None,
            }
        },
        "ollama_pull",
        {},
    ),
    # vLLM serves another model.
    "vllm unknown model": (
        404,
        {
            "object": "error",
            "message": f"The model `{MODEL}` does not exist.",
            "type": "NotFoundError",
            "param": None,
            "code": 404,
        },
        "model_missing",
        {},
    ),
    # OpenRouter: a model id it does not have.
    "openrouter unknown model": (
        400,
        {"error": {"message": f"{MODEL} is not a valid model ID", "code": 400}},
        "model_missing",
        {},
    ),
}


def setup_reply(name: str) -> Reply:
    """The server's answer, as the fake LLM server sends it."""
    status, body, _, _ = SETUP_ERRORS[name]
    return Reply("error", status=status, body=body)


# llama-server's GET /props (abridged: the fields around n_ctx as sent).
LLAMA_CPP_PROPS: dict[str, Any] = {
    "default_generation_settings": {
        "id": 0,
        "id_task": -1,
        "n_ctx": 4096,
        "speculative": False,
        "is_processing": False,
        "params": {"n_predict": -1, "temperature": 0.8, "top_k": 40, "top_p": 0.95},
    },
    "total_slots": 1,
    "model_path": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
    "modalities": {"vision": False, "audio": False},
    "bos_token": "<|endoftext|>",
    "eos_token": "<|im_end|>",
    "build_info": "b6123-abc1234",
}

# Ollama's POST /api/show for a model with num_ctx set in its Modelfile.
OLLAMA_SHOW: dict[str, Any] = {
    "license": "Apache License 2.0",
    "modelfile": f"FROM {MODEL}\nPARAMETER num_ctx 8192\n",
    "parameters": 'num_ctx                        8192\nstop                           "<|im_start|>"\nstop                           "<|im_end|>"',
    "template": "{{ .Prompt }}",
    "details": {
        "parent_model": "",
        "format": "gguf",
        "family": "qwen3",
        "families": ["qwen3"],
        "parameter_size": "8.2B",
        "quantization_level": "Q4_K_M",
    },
    "model_info": {
        "general.architecture": "qwen3",
        "general.parameter_count": 8190735360,
        "qwen3.context_length": 40960,
        "qwen3.embedding_length": 4096,
    },
    "capabilities": ["completion", "tools", "thinking"],
    "modified_at": "2025-05-01T10:00:00.000000000Z",
}


# vLLM's GET /v1/models: each model with the max_model_len it was started with.
def vllm_models(model: str, max_model_len: int) -> dict[str, Any]:
    """The model list vLLM sends."""
    return {
        "object": "list",
        "data": [
            {
                "id": model,
                "object": "model",
                "created": 1735689600,
                "owned_by": "vllm",
                "root": model,
                "parent": None,
                "max_model_len": max_model_len,
                "permission": [],
            }
        ],
    }
