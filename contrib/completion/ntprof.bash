# SPDX-License-Identifier: GPL-2.0
# bash completion for ntprof(1).
#
# The functions that complete; the build appends the option tables they
# read, printed by the built binary (`ntprof help --completion-tables bash`),
# so that the commands, options and option values completed are those of
# --help.  make installs the result as
# $(PREFIX)/share/bash-completion/completions/ntprof; to try it from the
# tree: source build/completion/ntprof.bash
#
# Completed: the commands; each command's options, in both spellings; the
# value of an option, from the words its table gives (roles, transports,
# stage views, statistics, fields, I/O types; after the last comma for a
# list), file names for a FILE; and operands: recordings (.ntp files and
# directories, after a comma too, for compare's HOST.ntp,TARGET.ntp), the
# command name of `ntprof help`, and record's workload (a command, then
# file names).  --opt=value is completed as --opt value is.

# COMPREPLY: the words of $1 that begin with $2, each after the prefix $3
_ntprof_words()
{
	local word
	COMPREPLY=()
	for word in $1; do
		[[ $word == "$2"* ]] && COMPREPLY+=("$3$word")
	done
}

# COMPREPLY: file names beginning with $1 (only directories and *.ntp when
# $2 is set), each after the prefix $3
_ntprof_files()
{
	local name
	COMPREPLY=()
	compopt -o filenames 2>/dev/null
	while IFS= read -r name; do
		if [[ ! $2 || -d $name || $name == *.ntp ]]; then
			COMPREPLY+=("$3$name")
		fi
	done < <(compgen -f -- "$1")
}

# COMPREPLY: the value of command $1's option $2 that begins with $3, after
# the prefix $4 (the "--opt=" of a word bash did not split)
_ntprof_value()
{
	local spec=${_ntprof_args["$1 $2"]} head=''
	case $spec in
	f)	_ntprof_files "$3" "" "$4" ;;
	w\ *)	_ntprof_words "${spec#w }" "$3" "$4" ;;
	l\ *)	[[ $3 == *,* ]] && head=${3%,*},
		_ntprof_words "${spec#l }" "${3##*,}" "$4$head" ;;
	*)	COMPREPLY=() ;;
	esac
}

# is the cluster of short options $2 of command $1 ("-vs", "-s") ended by
# one that takes the next word as its value?
_ntprof_cluster()
{
	local i
	for ((i = 1; i < ${#2}; i++)); do
		if [[ ${_ntprof_args["$1 -${2:i:1}"]+set} ]]; then
			((i == ${#2} - 1))
			return
		fi
	done
	return 1
}

_ntprof()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prefix='' opt='' glue='' word cmd='' i
	local skip='' last='' rest='' nops=0
	local -a words=()

	COMPREPLY=()
	# bash splits "--opt=value" at the '=' (COMP_WORDBREAKS): join it back
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		if [[ $glue ]]; then
			words[-1]+=$word
			glue=''
		elif [[ $word == = && ${#words[@]} -gt 0 && ${words[-1]} == --* &&
			${words[-1]} != *=* ]]; then
			words[-1]+='='
			glue=1
		else
			words+=("$word")
		fi
	done
	if [[ $glue ]]; then                    # --opt= value|
		opt=${words[-1]%=}
		unset 'words[-1]'
	elif [[ $cur == = && ${#words[@]} -gt 0 && ${words[-1]} == --* ]]; then    # --opt=|
		opt=${words[-1]}
		unset 'words[-1]'
		cur=
	elif [[ $cur == --*=* ]]; then          # --opt=value| as one word
		opt=${cur%%=*}
		prefix=$opt=
		cur=${cur#*=}
	fi

	# the command: the first word that is not a global option (or its value)
	for ((i = 0; i < ${#words[@]}; i++)); do
		word=${words[i]}
		if [[ $word != -* ]]; then
			cmd=$word
			break
		fi
		[[ $word != *=* && ${_ntprof_args["ntprof $word"]+set} ]] && ((i++))
	done
	if [[ ! $cmd ]]; then
		if [[ $opt ]]; then
			_ntprof_value ntprof "$opt" "$cur" "$prefix"
		elif ((i > ${#words[@]})); then
			_ntprof_value ntprof "${words[-1]}" "$cur" ""
		elif [[ $cur == -* ]]; then
			_ntprof_words "${_ntprof_opts[ntprof]}" "$cur" ""
		else
			_ntprof_words "$_ntprof_commands" "$cur" ""
		fi
		return 0
	fi
	[[ ${_ntprof_opts[$cmd]+set} ]] || return 0

	# the command's words so far: options, their values, operands
	for word in "${words[@]:i+1}"; do
		if [[ $skip ]]; then
			skip=''
		elif [[ $rest ]]; then
			((nops++))
		elif [[ $word == -- ]]; then
			rest=1
		elif [[ $word == --*=* ]]; then
			:
		elif [[ $word == --* ]]; then
			[[ ${_ntprof_args["$cmd $word"]+set} ]] && skip=1 last=$word
		elif [[ $word == -?* ]]; then
			_ntprof_cluster "$cmd" "$word" && skip=1 last=-${word: -1}
		else
			((nops++))
			# record: the first operand starts the workload's command line
			[[ ${_ntprof_operands[$cmd]} == workload ]] && rest=1
		fi
	done

	if [[ $opt ]]; then
		_ntprof_value "$cmd" "$opt" "$cur" "$prefix"
	elif [[ $skip ]]; then
		_ntprof_value "$cmd" "$last" "$cur" ""
	elif [[ ! $rest && $cur == -* ]]; then
		_ntprof_words "${_ntprof_opts[$cmd]}" "$cur" ""
	else
		case ${_ntprof_operands[$cmd]} in
		recordings)
			# compare's HOST.ntp,TARGET.ntp: the file after the last comma
			if [[ $cur == *,* ]]; then
				_ntprof_files "${cur##*,}" ntp "${cur%,*},"
			else
				_ntprof_files "$cur" ntp ""
			fi ;;
		workload)
			if ((nops == 0)); then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			else
				_ntprof_files "$cur" "" ""
			fi ;;
		command)
			((nops == 0)) && _ntprof_words "$_ntprof_commands" "$cur" "" ;;
		esac
	fi
	return 0
}

complete -F _ntprof ntprof

