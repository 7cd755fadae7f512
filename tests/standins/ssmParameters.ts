/**
 * `aws ssm get-parameter` and `aws ssm put-parameter` as SSM documents them, as a bash function for tests
 * that source the bootstrap's modules. A parameter is the file SSM_STANDIN_DIR/NAME holding its value, and
 * NAME.key the KMS key of a SecureString (the account's `alias/aws/ssm` when --key-id is left out).
 * GetParameter of a missing name fails with ParameterNotFound; PutParameter of an existing name without
 * --overwrite fails with ParameterAlreadyExists.
 */
export const SSM_STANDIN = `aws() {
  local op="$1 $2" name="" value="" type="" key=alias/aws/ssm overwrite=no file
  shift 2
  while [ $# -gt 0 ]; do
    case "$1" in
    --name) name=$2; shift ;;
    --value) value=$2; shift ;;
    --type) type=$2; shift ;;
    --key-id) key=$2; shift ;;
    --overwrite) overwrite=yes ;;
    esac
    shift
  done
  file="$SSM_STANDIN_DIR$name"
  case "$op" in
  "ssm get-parameter")
    if [ ! -f "$file" ]; then
      echo "An error occurred (ParameterNotFound) when calling the GetParameter operation: " >&2
      return 254
    fi
    cat "$file" ;;
  "ssm put-parameter")
    if [ -f "$file" ] && [ "$overwrite" = no ]; then
      echo "An error occurred (ParameterAlreadyExists) when calling the PutParameter operation: The parameter already exists." >&2
      return 254
    fi
    mkdir -p "$(dirname "$file")"
    printf '%s\\n' "$value" >"$file"
    if [ "$type" = SecureString ]; then echo "$key" >"$file.key"; else rm -f "$file.key"; fi ;;
  *) return 252 ;;
  esac
}`;
